/**
 * The wire endpoint's public entry (bundled to dist/server.js, with dist/server.d.ts): serve the
 * TTL engine to MongoDB clients. `startServer` is for test suites; `WireServer` serves an engine
 * you made.
 */
export { startServer, type ClockMove, type RunningServer, type StartServerOptions } from './start-server';
export { WireServer, type WireServerOptions } from './server';
export { CONTROL_COMMAND } from './control';
export type { AuthOptions } from './auth';
