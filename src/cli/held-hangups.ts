/**
 * Until `serve` has wired its reload, a SIGHUP would end the process (node's
 * default for that signal). Loading the modules and starting the gateway
 * take a while, and a cluster primary passes SIGHUP on to a worker that may
 * still be starting; config tooling may signal at any moment. So a SIGHUP is
 * held from the first line of `main` to the moment serve takes over, and a
 * reload done then if one came.
 */
let held = false;
const hold = () => {
  held = true;
};

/** Starts holding SIGHUP (idempotent). */
export function holdHangups(): void {
  process.off('SIGHUP', hold);
  process.on('SIGHUP', hold);
}

/** Stops holding SIGHUP; true when one came meanwhile. */
export function releaseHangups(): boolean {
  process.off('SIGHUP', hold);
  const came = held;
  held = false;
  return came;
}
