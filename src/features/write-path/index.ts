/**
 * The one write path (STYLE.md 13) as one module: the transaction runner (group commit on SQLite) under every
 * module's writes, and `writePaths(bind)`, which each module calls with its own repositories bound to the write.
 */
import type { Db } from '../../db/database.js';
import { createTransactionRunner } from '../../db/group-commit.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditService } from '../audit/audit.service.js';
import { createWritePath, type EventOutbox, type WritePaths } from './write-path.js';

export function createWritePathModule(deps: { db: Db; audit: AuditService; events: EventOutbox; clock: Clock }) {
  const { audit, events, clock } = deps;
  const transactions = createTransactionRunner(deps.db.kysely, deps.db.dialect);
  const writePaths: WritePaths = (bind) => createWritePath({ transactions, bind, audit, events, clock });
  return { transactions, writePaths };
}

export type WritePathModule = ReturnType<typeof createWritePathModule>;
