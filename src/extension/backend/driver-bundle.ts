/**
 * Everything that needs the official `mongodb` driver or its connection-string parser, bundled on
 * its own (dist/driver.js). The workbench requires it only when a saved connection is added,
 * edited or connected (connections/driver-loader.ts), so a window that only uses the embedded
 * engine never loads the driver, whatwg-url or their copy of bson. No `vscode` import.
 */
export { DriverBackend } from './driver-backend';
export { parseConnectionString, redactText, withPassword } from '../connections/connection-string';
