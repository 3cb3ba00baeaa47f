import type { AppContext } from '../../context.js';
import type { Handlers } from './operation-route.js';

/** Comments and answers on an item, and images on an answer. */
export const answersHandlers = ({ comments, answers, attachments }: AppContext): Pick<Handlers, 'addComment' | 'addAnswer' | 'attachAnswerImages'> => ({
  addComment: ({ user, fields: { item_id, text }, audit }) => comments.addComment(user, item_id, { text }, audit),

  addAnswer: ({ user, fields: { item_id, text, document_links }, audit }) => answers.addAnswer(user, item_id, { text, document_links }, audit),

  attachAnswerImages: ({ user, fields, files, audit }) => attachments.attachToAnswer(user, Number(fields.answer_id), files, audit),
});
