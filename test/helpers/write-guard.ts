// Setup of the SQLite test project (vitest.config.ts): a statement on the root database from inside a write's
// unit of work throws at once (src/db/write-guard.ts) instead of waiting for ever for the write's connection.
import { enableWriteGuard } from '../../src/db/write-guard.js';

enableWriteGuard();
