import type { CallInput, InputOf, Operation } from '../api/v1/define-operation.js';

/**
 * The argument types of the client's methods, from the operation definitions: `Static<>` of the query or
 * body schema, split as the definition's `client` block says (positional properties, then the others as
 * one object).
 */

type QueryOf<Op extends Operation> = NonNullable<Op['query']>;
type FieldsOf<Op extends Operation> = NonNullable<Op['fields']>;
/** The operation's input as one object (query parameters, or body / form fields and files). */
type ClientInput<Op extends Operation> = InputOf<QueryOf<Op>, FieldsOf<Op>, Op['body']>;
export type RequestOf<Op extends Operation> = CallInput<QueryOf<Op>, FieldsOf<Op>, Op['body']>;

type PositionalOf<Op extends Operation> = Op['client']['positional'];
type Positional<In, P extends readonly string[]> = { -readonly [K in keyof P]: P[K] extends keyof In ? In[P[K]] : never };
/** The object argument after the positional ones: the input's other properties. */
export type RestOf<Op extends Operation> = Omit<ClientInput<Op>, PositionalOf<Op>[number]>;
/** A method's arguments before the options: the positional ones, then the others as one object (optional when none is required). */
export type ArgsOf<Op extends Operation> = Op['client'] extends { rest: string }
  ? object extends RestOf<Op>
    ? [...Positional<ClientInput<Op>, PositionalOf<Op>>, rest?: RestOf<Op>]
    : [...Positional<ClientInput<Op>, PositionalOf<Op>>, rest: RestOf<Op>]
  : Positional<ClientInput<Op>, PositionalOf<Op>>;
