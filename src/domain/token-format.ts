import { hash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API token format: `plk_` + 30 random base62 characters + 6 base62 characters of the CRC-32
 * of those 30 characters (most significant digit first, zero-padded). 40 characters in all:
 * recognisable by secret scanners and cheaply rejected when mistyped.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'plk_';
const BODY = 30;
const CHECK = 6;
const PATTERN = /^plk_[0-9A-Za-z]{36}$/;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECK);
}

export function generateToken(): string {
  let body = '';
  for (let i = 0; i < BODY; i++) body += ALPHABET[randomInt(62)];
  return PREFIX + body + checksum(body);
}

export function isWellFormedToken(raw: string): boolean {
  if (!PATTERN.test(raw)) return false;
  const body = raw.slice(PREFIX.length, PREFIX.length + BODY);
  return raw.slice(PREFIX.length + BODY) === checksum(body);
}

export function hashToken(raw: string): string {
  return hash('sha256', raw, 'hex');
}
