/**
 * hostInfo: the machine the engine runs on, in mongod's reply shape (system, os, extra). The
 * figures are the process's own host as Node reports it; nothing leaves the machine.
 */
import * as os from 'node:os';
import { Int32, Long } from 'bson';
import type { CommandContext, CommandHandler } from './context';
import type { Document } from '../values/types';

/** mongod's os.type values: Linux, Darwin, Windows, BSD (and the kernel's own name otherwise). */
function osType(): string {
  const platform = os.platform();
  if (platform === 'linux') return 'Linux';
  if (platform === 'darwin') return 'Darwin';
  if (platform === 'win32') return 'Windows';
  if (platform.endsWith('bsd')) return 'BSD';
  return os.type();
}

function hostInfo({ engine }: CommandContext): Document {
  const cores = os.cpus().length;
  const memSizeMB = Math.round(os.totalmem() / (1024 * 1024));
  const addressBits = /64/.test(os.arch()) ? 64 : 32;
  return {
    system: {
      currentTime: engine.now(),
      hostname: os.hostname(),
      cpuAddrSize: new Int32(addressBits),
      memSizeMB: Long.fromNumber(memSizeMB),
      memLimitMB: Long.fromNumber(memSizeMB),
      numCores: new Int32(cores),
      numCoresAvailableToProcess: new Int32(os.availableParallelism?.() ?? cores),
      cpuArch: os.arch() === 'x64' ? 'x86_64' : os.arch(),
      numaEnabled: false,
    },
    os: { type: osType(), name: os.version(), version: `Kernel ${os.release()}` },
    extra: { versionString: `${os.type()} ${os.release()}`, pageSize: Long.fromNumber(4096) },
    ok: 1,
  };
}

export const hostInfoCommands: Record<string, CommandHandler> = { hostInfo };
