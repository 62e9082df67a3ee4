import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Tests mirror the code (STYLE "tests mirror modules"): src/a/b.ts is tested
 * by test/a/b.test.ts. A module with no logic of its own (only types,
 * constants, or a line that re-exports or delegates) needs no test file and
 * is listed here with the reason. Everything else without its mirror fails
 * this test by name.
 */
const NO_LOGIC: Readonly<Record<string, string>> = {
  'src/index.ts': 're-exports the public API; each export is tested at its own module',
  'src/admin/operation.ts': 'types only: AdminOperation, AdminResult, OperationRunner',
  'src/admin/ops-page/page.ts': 'a constant: the operations page\'s markup, served and checked in test/admin/ops-page/route.test.ts, run in test/admin/ops-page/browser.test.ts',
  'src/admin/ops-page/script.ts': 'a constant: the operations page\'s browser script, run in chromium by test/admin/ops-page/browser.test.ts',
  'src/admin/ops-page/style.ts': 'a constant: the operations page\'s style sheet',
  'src/cli/io.ts': 'the CommandIo type and two constants (exit codes, the default config file)',
  'src/config/defaults.ts': 'constants: the documented defaults, read through config/schema.ts (tested in test/config/schema.test.ts)',
  'src/config/paths.ts': 'constants: the endpoint paths, declared once',
  'src/context.ts': 'a type only: the GatewayContext every handler receives',
  'src/http/exchange.ts': 'a type only: the Exchange a request carries through the pipeline',
  'src/oauth/endpoints/endpoint.ts': 'a type only: the Endpoint interface each endpoint module implements',
  'src/oauth/grants/grant.ts': 'a type only: the Grant interface each grant module implements',
  'src/oauth/openapi/schemas.ts': 'constants: the JSON Schemas of the OpenAPI document, compiled and checked against real answers in test/oauth/openapi/document.test.ts and real-answers.test.ts',
  'src/oauth/openapi/security.ts': 'constants: the security schemes of the OpenAPI document (checked in test/oauth/openapi/document.test.ts)',
  'src/oauth/openapi/types.ts': 'type aliases and three one-line $ref builders',
  'src/pipeline/endpoints.ts': 'a constant table of the served endpoints; each is tested at its own module',
  'src/policies/figures.ts': 'the PolicyFigures type and the figures that count nothing (telemetry/policy-series.ts implements the real ones)',
  'src/policies/json-threat/limits.ts': 'types and the UNLIMITED constant',
  'src/proxy/engine.ts': 'one line choosing the undici forwarder (tested in test/proxy/undici-forwarder.test.ts)',
  'src/store/types.ts': 'types only: the Store interface both stores implement (their contract suite is test/store/contract.ts)',
  'src/tokens/access-token-claims.ts': 'a type only: the claims of an access token',
};

/** Folders whose modules are tested elsewhere for now. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  'src/client': 'the client SDK is moving to packages/client, with its own tests',
};

function modulesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return path in ELSEWHERE ? [] : modulesUnder(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

const mirrorOf = (module: string): string => join('test', relative('src', module)).replace(/\.ts$/, '.test.ts');

describe('tests mirror src/ module by module', () => {
  const modules = modulesUnder('src');

  it('finds the modules to check', () => {
    expect(modules.length).toBeGreaterThan(100);
  });

  it('has test/a/b.test.ts for every src/a/b.ts with logic', () => {
    const unmirrored = modules.filter((module) => !(module in NO_LOGIC) && !existsSync(mirrorOf(module)));
    expect(unmirrored, `modules with logic but no mirrored test file (write one, or list the module in NO_LOGIC with why)`).toEqual([]);
  });

  it('lists in NO_LOGIC only modules that exist and have no test file of their own', () => {
    for (const module of Object.keys(NO_LOGIC)) {
      expect(existsSync(module), `${module} is listed in NO_LOGIC but does not exist`).toBe(true);
      expect(existsSync(mirrorOf(module)), `${module} has ${mirrorOf(module)}: take it off NO_LOGIC`).toBe(false);
    }
  });
});
