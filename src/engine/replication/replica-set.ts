/**
 * The replica-set mode (`new Engine({replSetName})`, `--replSet NAME`): the engine answers as the
 * primary of a single-member replica set. It keeps an oplog, logical sessions with transactions and
 * retryable writes, and change streams; every reply carries the cluster time. What it reports of
 * itself (hello's set fields, replSetGetStatus) is built here; the wire adds the host name.
 */
import { Binary, Long, ObjectId, Timestamp } from 'bson';
import type { EngineContext } from '../engine-context';
import type { Document } from '../values/types';
import { ChangeStreams } from './change-streams';
import { Oplog } from './oplog';
import { SessionCatalog } from './sessions';
import type { ScratchEngine } from './transaction';

/** mongod's electionId of term 1 under protocol version 1: 0x7fffffff followed by the term. */
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');
const TERM = Long.fromNumber(1);

export class ReplicaSet {
  readonly oplog: Oplog;
  readonly sessions: SessionCatalog;
  readonly changeStreams: ChangeStreams;

  constructor(
    readonly name: string,
    private readonly engine: EngineContext,
    scratch: () => ScratchEngine,
  ) {
    this.oplog = new Oplog(() => engine.clock.now());
    this.sessions = new SessionCatalog(engine, this.oplog, scratch);
    this.changeStreams = new ChangeStreams(engine, this.oplog);
  }

  /** The fields hello adds for a replica-set member; `me` is "host:port" as clients reach it. */
  helloFields(me: string): Document {
    const ts = this.oplog.clusterTime;
    const date = new Date(ts.high * 1000);
    const opTime = { ts, t: TERM };
    return {
      hosts: [me],
      setName: this.name,
      setVersion: 1,
      isWritablePrimary: true,
      secondary: false,
      primary: me,
      me,
      electionId: ELECTION_ID,
      lastWrite: { opTime, lastWriteDate: date, majorityOpTime: opTime, majorityWriteDate: date },
    };
  }

  /** operationTime and $clusterTime, which every reply of a replica-set member carries. */
  clusterTimeFields(): Document {
    const ts = this.oplog.clusterTime;
    return {
      $clusterTime: {
        clusterTime: ts,
        signature: { hash: new Binary(Buffer.alloc(20), 0), keyId: Long.fromNumber(0) },
      },
      operationTime: ts,
    };
  }

  /** replSetGetStatus of the one member, primary and healthy. */
  status(me: string): Document {
    const ts = this.oplog.clusterTime;
    const opTime = { ts, t: TERM };
    const date = new Date(ts.high * 1000);
    const now = new Date(this.engine.clock.now());
    return {
      set: this.name,
      date: now,
      myState: 1,
      term: TERM,
      heartbeatIntervalMillis: Long.fromNumber(2000),
      majorityVoteCount: 1,
      writeMajorityCount: 1,
      votingMembersCount: 1,
      writableVotingMembersCount: 1,
      optimes: {
        lastCommittedOpTime: opTime,
        lastCommittedWallTime: date,
        appliedOpTime: opTime,
        durableOpTime: opTime,
        lastAppliedWallTime: date,
        lastDurableWallTime: date,
      },
      members: [
        {
          _id: 0,
          name: me,
          health: 1,
          state: 1,
          stateStr: 'PRIMARY',
          uptime: Math.floor((this.engine.clock.now() - this.engine.startedAt) / 1000),
          optime: opTime,
          optimeDate: date,
          electionTime: new Timestamp({ t: Math.floor(this.engine.startedAt / 1000), i: 1 }),
          electionDate: new Date(this.engine.startedAt),
          configVersion: 1,
          configTerm: 1,
          self: true,
        },
      ],
      ok: 1,
    };
  }

  /** replSetGetConfig's config of the one member. */
  config(me: string): Document {
    return {
      _id: this.name,
      version: 1,
      term: 1,
      members: [
        {
          _id: 0,
          host: me,
          arbiterOnly: false,
          buildIndexes: true,
          hidden: false,
          priority: 1,
          tags: {},
          secondaryDelaySecs: Long.fromNumber(0),
          votes: 1,
        },
      ],
      protocolVersion: Long.fromNumber(1),
      writeConcernMajorityJournalDefault: true,
      settings: {
        chainingAllowed: true,
        heartbeatIntervalMillis: 2000,
        electionTimeoutMillis: 10000,
        replicaSetId: ELECTION_ID,
      },
    };
  }
}
