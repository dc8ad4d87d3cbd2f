/**
 * An operator update parsed into mongod's update tree, and its expansion against one document into
 * the concrete paths the operations apply to.
 *
 * Each update path is a branch: an object node per field name, a positional child (`$`) kept apart
 * from the named children, an array node below any part followed by `$[]` or `$[<id>]` (its
 * children keyed by identifier, '' for `$[]`), and a leaf holding the parsed operation. Building the
 * tree is where mongod finds conflicting paths (40): a leaf on a path that already has a node, or a
 * part that must be an array node for one path and an object node for another (`a.$[]` and `a.0`).
 * `$` and `a.0` do not conflict when parsing: they are merged, and may conflict, once the matched
 * position is known, as are the children of an array node that select the same element.
 *
 * Expanding walks the tree in field-name order (bytes, as mongod's std::map orders children) and
 * the array elements in index order, so operations apply in the order mongod applies them.
 */
import { EngineError, ErrorCode } from '../../errors';
import { compareStrings } from '../../values/compare';
import { formatValue } from '../../values/format';
import { bsonTypeOf, isPlainObject, type Document } from '../../values/types';
import { isArrayFilterPart, ownField, pathOf, splitUpdatePath } from './document-writer';
import type { ArrayFilters } from './array-filters';
import { checkRenamePaths, checkRenameSpec, PARSERS, type CompiledOp, type Op } from './operators';

interface ObjectNode {
  kind: 'object';
  children: Map<string, TreeNode>;
  positional?: TreeNode;
}

interface ArrayNode {
  kind: 'array';
  /** By array filter identifier; '' for `$[]`. */
  children: Map<string, TreeNode>;
}

interface LeafNode {
  kind: 'leaf';
  /** undefined for the placeholder a $rename puts at its source path. */
  op?: Op;
}

type TreeNode = ObjectNode | ArrayNode | LeafNode;

export interface UpdateTree {
  root: ObjectNode;
  /** The tree has `$`, `$[]` or `$[<id>]` parts: its expansion depends on the document. */
  dynamic: boolean;
}

const DIGITS = /^[0-9]+$/;
const hasOwn = Object.prototype.hasOwnProperty;

function unknownModifier(name: string): EngineError {
  return new EngineError(
    ErrorCode.FailedToParse,
    `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
  );
}

function conflictAt(path: string, at: string): EngineError {
  return new EngineError(
    ErrorCode.ConflictingUpdateOperators,
    `Updating the path '${path}' would create a conflict at '${at}'`,
  );
}

/** Parse an operator update ({$set: ..., $inc: ...}) with its array filters into a tree. */
export function parseUpdateTree(update: Document, filters: ArrayFilters): UpdateTree {
  const root: ObjectNode = { kind: 'object', children: new Map() };
  const used = new Set<string>();
  // Stryker disable next-line BooleanLiteral: a tree without positional parts expands the same per document as once
  let dynamic = false;
  for (const name of Object.keys(update)) {
    const args = update[name];
    if (!name.startsWith('$') || (name !== '$rename' && !hasOwn.call(PARSERS, name))) throw unknownModifier(name);
    if (!isPlainObject(args)) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        `Modifiers operate on fields but we found type ${bsonTypeOf(args)} instead. For example: {$mod: {<field>: ...}} not {${name}: ${formatValue(args)}}`,
      );
    }
    // An empty operator ({$set: {}}) is a no-op since MongoDB 5.0.
    for (const field of Object.keys(args)) {
      const value = args[field];
      if (name === '$rename') {
        // mongod puts a placeholder at the source path first, then the rename at the target.
        const fromParts = checkedParts(field);
        addLeaf(root, fromParts, field, { kind: 'leaf' }, filters, used);
        checkRenameSpec(field, value);
        const toParts = checkedParts(value);
        checkRenamePaths(field, value);
        addLeaf(root, toParts, value, { kind: 'leaf', op: { kind: 'rename', from: pathOf(fromParts) } }, filters, used);
        continue;
      }
      const parts = checkedParts(field);
      const op = PARSERS[name](field, value);
      // Stryker disable next-line EqualityOperator: `p !== '$'` holds for the first part of every path, so every tree is dynamic, which expands the same
      if (parts.some((p) => p === '$' || isArrayFilterPart(p))) dynamic = true;
      addLeaf(root, parts, field, { kind: 'leaf', op }, filters, used);
    }
  }
  for (const id of filters.keys()) {
    if (!used.has(id)) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        `The array filter for identifier '${id}' was not used in the update ${formatValue(update)}`,
      );
    }
  }
  return { root, dynamic };
}

/** The path checks mongod makes before building the branch: updatable, and at most one `$`, not first. */
function checkedParts(dotted: string): string[] {
  const parts = splitUpdatePath(dotted);
  let positionals = 0;
  for (const part of parts) if (part === '$') positionals++;
  if (positionals > 1) {
    throw new EngineError(ErrorCode.BadValue, `Too many positional (i.e. '$') elements found in path '${dotted}'`);
  }
  if (parts[0] === '$') {
    throw new EngineError(
      ErrorCode.BadValue,
      `Cannot have positional (i.e. '$') element in the first position in path '${dotted}'`,
    );
  }
  return parts;
}

/** The child name a part has in the tree: an array filter part becomes its identifier. */
function childName(part: string, position: number, dotted: string, filters: ArrayFilters, used: Set<string>): string {
  if (!isArrayFilterPart(part)) return part;
  if (position === 0) {
    throw new EngineError(
      ErrorCode.BadValue,
      `Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '${dotted}'`,
    );
  }
  const id = part.slice(2, -1);
  if (id !== '' && !filters.has(id)) {
    throw new EngineError(ErrorCode.BadValue, `No array filter found for identifier '${id}' in path '${dotted}'`);
  }
  // Stryker disable next-line StringLiteral: an added '' is never read, `used` is read only for the filters' identifiers, never empty
  if (id !== '') used.add(id);
  return id;
}

function getChild(node: ObjectNode | ArrayNode, name: string): TreeNode | undefined {
  if (node.kind === 'object' && name === '$') return node.positional;
  return node.children.get(name);
}

function setChild(node: ObjectNode | ArrayNode, name: string, child: TreeNode): void {
  if (node.kind === 'object' && name === '$') node.positional = child;
  else node.children.set(name, child);
}

function addLeaf(
  root: ObjectNode,
  parts: string[],
  dotted: string,
  leaf: LeafNode,
  filters: ArrayFilters,
  used: Set<string>,
): void {
  let current: ObjectNode | ArrayNode = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const name = childName(parts[i], i, dotted, filters, used);
    const shouldBeArray = isArrayFilterPart(parts[i + 1]);
    let child = getChild(current, name);
    if (child) {
      if (child.kind !== (shouldBeArray ? 'array' : 'object'))
        throw conflictAt(dotted, parts.slice(0, i + 1).join('.'));
    } else {
      child = shouldBeArray ? { kind: 'array', children: new Map() } : { kind: 'object', children: new Map() };
      setChild(current, name, child);
    }
    current = child;
  }
  const name = childName(parts[parts.length - 1], parts.length - 1, dotted, filters, used);
  if (getChild(current, name)) throw conflictAt(dotted, dotted);
  setChild(current, name, leaf);
}

// ---------------------------------------------------------------------------------------------
// Expansion against a document
// ---------------------------------------------------------------------------------------------

const MISSING = Symbol('missing');

export interface ExpandContext {
  /** The array position the query matched (for `$`), if it matched through an array. */
  matchedField?: string;
  filters: ArrayFilters;
}

/**
 * A path during expansion, shared between siblings: each step links to its parent, so a path of
 * 100,000 parts costs one link per part, not a copy per level.
 */
interface PathLink {
  parent: PathLink | undefined;
  name: string;
}

function partsOf(link: PathLink | undefined): string[] {
  const parts: string[] = [];
  for (let l = link; l; l = l.parent) parts.push(l.name);
  return parts.reverse();
}

/** One node to expand, at the value it has in the document and the path it takes. */
interface Visit {
  node: TreeNode;
  value: unknown;
  path: PathLink | undefined;
}

/**
 * The operations of the tree at the concrete paths they take in `doc`, in the order they apply.
 * Depth-first with a stack of its own: an update path may be far longer than the call stack is
 * deep (the document it would make is refused later, with Overflow).
 */
export function expandTree(tree: UpdateTree, doc: Document | undefined, ctx: ExpandContext): CompiledOp[] {
  const out: CompiledOp[] = [];
  const stack: Visit[] = [{ node: tree.root, value: doc ?? MISSING, path: undefined }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const { node, value, path } = visit;
    if (node.kind === 'leaf') {
      if (node.op) out.push({ path: pathOf(partsOf(path)), op: node.op });
      continue;
    }
    const children =
      node.kind === 'object' ? objectChildren(node, value, path, ctx) : arrayChildren(node, value, path, ctx);
    // Pushed last first, so they are expanded in order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

function childValue(value: unknown, name: string): unknown {
  if (Array.isArray(value)) {
    if (!DIGITS.test(name)) return MISSING;
    const i = Number(name);
    return i < value.length ? value[i] : MISSING;
  }
  if (isPlainObject(value)) {
    const v = ownField(value, name);
    return v === undefined && !hasOwn.call(value, name) ? MISSING : v;
  }
  return MISSING;
}

/** An object node's children in field-name order, the positional child placed at the matched position. */
function objectChildren(node: ObjectNode, value: unknown, path: PathLink | undefined, ctx: ExpandContext): Visit[] {
  let positional = node.positional;
  const matched = ctx.matchedField;
  if (positional && matched === undefined) {
    throw new EngineError(ErrorCode.BadValue, 'The positional operator did not find the match needed from the query.');
  }
  const visits: Visit[] = [];
  const visit = (child: TreeNode, name: string): void => {
    visits.push({ node: child, value: childValue(value, name), path: { parent: path, name } });
  };
  const names = [...node.children.keys()].sort(compareStrings);
  for (const name of names) {
    let child = node.children.get(name) as TreeNode;
    if (positional && matched !== undefined) {
      if (name === matched) {
        child = mergeNodes(positional, child, [...partsOf(path), name]);
        positional = undefined;
      } else if (compareStrings(matched, name) < 0) {
        visit(positional, matched);
        positional = undefined;
      }
    }
    visit(child, name);
  }
  if (positional && matched !== undefined) visit(positional, matched);
  return visits;
}

/** The elements an array node updates, each with its children merged into one node. */
function arrayChildren(node: ArrayNode, value: unknown, path: PathLink | undefined, ctx: ExpandContext): Visit[] {
  if (value === MISSING) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The path '${partsOf(path).join('.')}' must exist in the document in order to apply array updates.`,
    );
  }
  if (!Array.isArray(value)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `Cannot apply array updates to non-array element ${path?.name ?? ''}: ${formatValue(value)}`,
    );
  }
  const ids = [...node.children.keys()].sort(compareStrings);
  const visits: Visit[] = [];
  for (let i = 0; i < value.length; i++) {
    const element = value[i];
    let merged: TreeNode | undefined;
    const at: PathLink = { parent: path, name: String(i) };
    for (const id of ids) {
      if (id !== '' && !(ctx.filters.get(id) as (el: unknown) => boolean)(element)) continue;
      const child = node.children.get(id) as TreeNode;
      merged = merged ? mergeNodes(merged, child, partsOf(at)) : child;
    }
    if (merged) visits.push({ node: merged, value: element, path: at });
  }
  return visits;
}

/** Two updates of one element (positional and named, or two array filters): mongod merges them. */
function mergeNodes(a: TreeNode, b: TreeNode, path: string[]): TreeNode {
  if (a.kind === 'object' && b.kind === 'object') {
    const children = mergeChildren(a.children, b.children, path, false);
    let positional = a.positional ?? b.positional;
    if (a.positional && b.positional) positional = mergeNodes(a.positional, b.positional, [...path, '$']);
    return { kind: 'object', children, positional };
  }
  if (a.kind === 'array' && b.kind === 'array') {
    return { kind: 'array', children: mergeChildren(a.children, b.children, path, true) };
  }
  throw new EngineError(ErrorCode.ConflictingUpdateOperators, `Update created a conflict at '${path.join('.')}'`);
}

function mergeChildren(
  a: Map<string, TreeNode>,
  b: Map<string, TreeNode>,
  path: string[],
  identifiers: boolean,
): Map<string, TreeNode> {
  const out = new Map(a);
  for (const [name, child] of b) {
    const mine = out.get(name);
    out.set(name, mine ? mergeNodes(mine, child, [...path, identifiers ? `$[${name}]` : name]) : child);
  }
  return out;
}
