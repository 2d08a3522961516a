import path from 'node:path';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { eventLogContract } from '../contracts/event-log.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

eventLogContract('embedded (LMDB)', async () => {
  const tmp = tempDir();
  const dir = path.join(tmp.dir, 'event-log');
  const fast = { heartbeatIntervalMs: 200, sessionTimeoutMs: 1500 };
  const log = new LmdbEventLog(dir, fast);
  return {
    log,
    reopen: async () => new LmdbEventLog(dir, fast),
    cleanup: async () => {
      await log.close();
      tmp.remove();
    },
  };
});
