/**
 * Whether an index path part names an element of an array ("a.0"). BSON names array elements by
 * their decimal position with no leading zeros, and mongod's key generator looks the part up among
 * those names: "00" or "01" is never a position, only a field of the elements.
 */
export function isArrayPosition(part: string): boolean {
  return part.length > 0 && part.length < 10 && /^(?:0|[1-9][0-9]*)$/.test(part);
}
