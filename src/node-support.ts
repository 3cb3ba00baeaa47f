/**
 * Which Node.js this process runs on, against what Punchlist supports (docs/deployment.md, "Node versions"):
 * 24 LTS recommended, 22 supported, 20 still working but past its end of life (April 2026; its dependencies,
 * the AWS SDK first, are leaving it). Read once at start; the server logs the warning as one line.
 */
export const RECOMMENDED_NODE = 24;

/** The warning for this version of Node (`process.versions.node`), or null when it is a supported one. */
export function nodeVersionWarning(version: string): string | null {
  const major = Number(version.split('.')[0]);
  if (major === 22 || major === RECOMMENDED_NODE) return null;
  if (major === 20) {
    return `Node.js ${version} reached its end of life in April 2026 and its dependencies are leaving it: Punchlist still runs on it, but move to Node.js ${RECOMMENDED_NODE} LTS (22 is supported too), see docs/deployment.md, "Node versions"`;
  }
  return `Node.js ${version} is not a version Punchlist is tested on: use Node.js ${RECOMMENDED_NODE} LTS (22 is supported too), see docs/deployment.md, "Node versions"`;
}
