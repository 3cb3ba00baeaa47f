import type { Config } from './config.js';
import { type Clock, systemClock } from './clock.js';
import { type Db, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createAttachmentsService } from './features/attachments/attachments.service.js';
import { createAuditService } from './features/audit/audit.service.js';
import { createItemsService } from './features/items/items.service.js';
import { createProjectsRepository } from './features/projects/projects.repository.js';
import { createProjectsService } from './features/projects/projects.service.js';
import { createTokensService } from './features/tokens/tokens.service.js';
import { createUsersService } from './features/users/users.service.js';
import { createImageConverter } from './imaging/images.js';
import { openBlobStore } from './storage/index.js';

/** The composition root: every dependency is built here, explicitly, from the config. */
export async function createContext(config: Config, options: { clock?: Clock; migrate?: boolean } = {}) {
  const clock = options.clock ?? systemClock;
  const db: Db = openDatabase(config.databaseUrl);
  if (options.migrate !== false) await migrateToLatest(db.kysely);
  const projectsRepo = createProjectsRepository(db.kysely);
  const blobs = openBlobStore(config.storageUrl);
  const images = createImageConverter();
  const items = createItemsService(db.kysely, projectsRepo, config);
  const ctx = {
    config,
    clock,
    db,
    blobs,
    images,
    users: createUsersService(db.kysely, clock),
    tokens: createTokensService(db.kysely, clock),
    audit: createAuditService(db.kysely),
    projects: createProjectsService(projectsRepo),
    items,
    attachments: createAttachmentsService({ db: db.kysely, blobs, images, items, clock, urls: config }),
    async close() {
      await db.close();
    },
  };
  return ctx;
}

export type AppContext = Awaited<ReturnType<typeof createContext>>;
