import type { Scope } from '../../src/domain/scopes.js';
import { V1 } from '../helpers/server.js';

/** Every read endpoint of v1 with a request that succeeds for the manager, and the scope it needs (auth*.test.ts). */
export const READS: { name: string; path: string; scope: Scope }[] = [
  { name: 'auth/me', path: `${V1}/auth/me.php`, scope: 'auth:me' },
  { name: 'projects/list', path: `${V1}/projects/list.php`, scope: 'projects:read' },
  { name: 'projects/get', path: `${V1}/projects/get.php?id=1`, scope: 'projects:read' },
  { name: 'projects/tree', path: `${V1}/projects/tree.php?id=1`, scope: 'projects:read' },
  { name: 'items/get', path: `${V1}/items/get.php?id=1000`, scope: 'items:read' },
];
export const BY_ID = READS.filter((r) => r.path.includes('?id='));
