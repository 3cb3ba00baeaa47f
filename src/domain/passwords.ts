import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// scrypt with N=2^15, r=8, p=1 (OWASP's minimum for scrypt); stored as scrypt$N$r$p$salt$hash.
const N = 32768;
const R = 8;
const P = 1;
const KEYLEN = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEYLEN, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

// A hash of a random password, checked when the account is unknown so that timing does not tell.
// Started by prepareDummyHash() when the sessions service is created (commands that never check a
// password do not pay for it); a failed attempt is forgotten so that the next check makes it again.
let dummyHash: Promise<string> | undefined;

function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex')).catch((err: unknown) => {
    dummyHash = undefined;
    throw err;
  });
  return dummyHash;
}

/** Starts computing the dummy hash without waiting for it, so the first unknown account is not slower. */
export function prepareDummyHash(): void {
  dummy().catch(() => {}); // a failure shows at the check that needs the hash
}

/** Constant-time check; an unknown account (null hash) takes as long as a wrong password. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? (await dummy())).split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return timingSafeEqual(actual, expected) && stored !== null;
}
