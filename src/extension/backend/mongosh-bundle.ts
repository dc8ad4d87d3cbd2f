/**
 * mongosh's runtime for playground cells on a connection, bundled on its own (dist/mongosh.js):
 * the shell API, its evaluator and the node driver's service provider weigh several megabytes, so
 * they load on the first cell run on a connection, never for the embedded engine or the tree.
 */
export { openMongoshSession } from './mongosh-session';
