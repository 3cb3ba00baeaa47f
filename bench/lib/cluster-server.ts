/**
 * Punchlist under node:cluster, for bench/cluster.ts only: the primary forks CLUSTER_WORKERS processes, each
 * running src/main.ts on the same port (the primary hands out connections round-robin) and database.
 */
import cluster from 'node:cluster';

const workers = Number(process.env.CLUSTER_WORKERS ?? 2);
if (cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  const stop = () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
} else {
  const { serve } = await import('../../src/main.js');
  await serve({ demo: false });
}
