/**
 * The top frames of a V8 CPU profile (`node --cpu-prof`), by self time and by total time.
 * Run: node --import tsx bench/profile-top.ts FILE.cpuprofile|DIR [N]
 * (`BENCH_PROFILE=1 npm run bench` writes the profiles of each scenario under data/bench/profiles/<scenario>/;
 * given a directory, the largest profile in it is read: the main thread's, not the tsx loader thread's.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-top.ts FILE.cpuprofile [N]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const path = statSync(file).isDirectory()
  ? readdirSync(file)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(file, f))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]!
  : file;
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};

// Time per sample: the delta that follows it (µs).
const selfTime = new Map<string, number>();
const totalTime = new Map<string, number>();
let all = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const node = byId.get(id);
  if (!node) return;
  all += dt;
  const name = label(node);
  if (node.callFrame.functionName === '(idle)') idle += dt;
  selfTime.set(name, (selfTime.get(name) ?? 0) + dt);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    totalTime.set(l, (totalTime.get(l) ?? 0) + dt);
  }
});

const busy = all - idle;
const pct = (v: number) => `${((100 * v) / busy).toFixed(1).padStart(5)} %`;
const print = (title: string, map: Map<string, number>, skip: (name: string) => boolean) => {
  process.stdout.write(`\n${title} (% of non-idle time, ${(busy / 1e6).toFixed(1)} s busy of ${(all / 1e6).toFixed(1)} s)\n`);
  [...map.entries()]
    .filter(([name]) => !skip(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, v]) => process.stdout.write(`${pct(v)}  ${name}\n`));
};
print('self time', selfTime, (n) => n.startsWith('(idle)'));
print('total time', totalTime, (n) => n.startsWith('(idle)') || n.startsWith('(root)') || n.startsWith('(program)'));
