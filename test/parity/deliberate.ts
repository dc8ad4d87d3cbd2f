/**
 * Scripts of the corpus whose output differs from mongosh's on purpose, each with the reason
 * (docs/mongosh-parity.md says the same for users). The parity test fails when a listed script
 * matches again, so the list only holds differences that exist.
 */
export const DELIBERATE: Record<string, string> = {};
