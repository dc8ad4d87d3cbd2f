import { Collection, type CollectionHost, type CollectionOptions } from './collection';

/** A database: a named set of collections. It exists while it has at least one collection. */
export class Database {
  readonly collections = new Map<string, Collection>();

  constructor(
    readonly name: string,
    private readonly onDocuments: CollectionHost['onDocuments'],
  ) {}

  createCollection(name: string, options: CollectionOptions): Collection {
    const coll = new Collection({ dbName: this.name, onDocuments: this.onDocuments }, name, options);
    this.collections.set(name, coll);
    return coll;
  }
}
