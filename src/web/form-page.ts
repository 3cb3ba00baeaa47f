import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormFailure, WebWrite, WebWriter } from './web-write.js';

/**
 * A page whose forms post back to it (an item, a project's structure, a project in the admin): `view` loads
 * and renders the page of one id, with the refused form when there is one. `show` answers with it; `write`
 * sends one of the page's forms through webWrite, with the page as the write's entity and the page again,
 * with the refused form, as its re-render.
 */
export function formPage(
  webWrite: WebWriter,
  page: { entity: string; view: (request: FastifyRequest, id: number, failure: FormFailure | null) => Promise<string> },
) {
  async function show(request: FastifyRequest, reply: FastifyReply, id: number, failure: FormFailure | null = null, status = 200) {
    const view = await page.view(request, id, failure);
    return reply.code(status).type('text/html; charset=utf-8').send(view);
  }
  return {
    show,
    write<T>(request: FastifyRequest, reply: FastifyReply, id: number, w: Omit<WebWrite<T>, 'entity' | 'rerender'>) {
      return webWrite(request, reply, {
        ...w,
        entity: { type: page.entity, id },
        rerender: (failure, status) => show(request, reply, id, failure, status),
      });
    },
  };
}
