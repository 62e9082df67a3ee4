import { CATALOGUE_NOTES, catalogue, type ErrorCode } from '../errors/catalogue.js';
import { code, table } from './markdown.js';

/** The error table of docs/errors.md, row by row from the catalogue. */
export function errorTable(): string {
  const rows = (Object.keys(catalogue) as ErrorCode[]).map((errorCode) => {
    const entry = catalogue[errorCode];
    const origin = entry.fromSpec ? '[contract, section 7](http-contract.md#7-errors)' : 'decided here';
    const note = CATALOGUE_NOTES[errorCode];
    return [code(errorCode), String(entry.status), entry.errorType, entry.message, code(entry.oauthError), note ? `${origin} (${note})` : origin];
  });
  return table(['errorCode', 'status', 'errorType', 'message', '`error`', 'source'], rows);
}
