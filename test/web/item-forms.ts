import { solid } from '../helpers/images.js';

/** Helpers of the item page's form tests (workplace*.test.ts). */

/** The idempotency key of the form posting to `action` on the page. */
export function keyOf(page: string, action: string): string {
  const form = page.slice(page.indexOf(`action="${action}"`));
  return /name="_key" value="([^"]+)"/.exec(form)![1]!;
}

/** A photo form with `count` distinct PNG images. */
export async function photos(count: number): Promise<FormData> {
  const form = new FormData();
  for (let i = 0; i < count; i++)
    form.append('attachments[]', new Blob([new Uint8Array(await solid(40 + i, 30, 'png'))], { type: 'image/png' }), `site-${i}.png`);
  return form;
}
