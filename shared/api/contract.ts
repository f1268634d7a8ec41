// How an API's operations are declared: each one's HTTP method and request schema in one table
// (./requests.ts for users, ./agent-requests.ts for agents). The API dispatches through that table
// (functions/api/dispatch.ts) and the CLI's client takes its types from it, so the method an
// operation answers to and the request it accepts are written once.
import type * as z from 'zod';

/**
 * One operation: GET only reads (its request is the query string); POST carries a JSON body. Its
 * scope says what it acts on: one model (the one the request names, shared/api/model-header.ts),
 * or the controller (its models: add-model, models, show-model, destroy-model).
 */
export interface OperationSpec<S extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST';
  request: S;
  scope: 'model' | 'controller';
}

interface Options {
  /** The operation acts on the controller's models, not within one. */
  controller?: boolean;
}

const scopeOf = (options: Options) => (options.controller ? ('controller' as const) : ('model' as const));

export type Contract = Record<string, OperationSpec>;

/** An operation that changes something: `POST /v1/<operation>` with a JSON body. */
export const post = <S extends z.ZodType>(request: S, options: Options = {}) =>
  ({ method: 'POST', request, scope: scopeOf(options) }) as const;

/** An operation that only reads: `GET /v1/<operation>?<request as query parameters>`. */
export const get = <S extends z.ZodType>(request: S, options: Options = {}) =>
  ({ method: 'GET', request, scope: scopeOf(options) }) as const;

/** Each operation's request, as its schema parses it. */
export type RequestsOf<C extends Contract> = { [O in keyof C]: z.output<C[O]['request']> };

/** The operations of a contract declared with `get`. */
export type ReadOperationsOf<C extends Contract> = { [O in keyof C]: C[O]['method'] extends 'GET' ? O : never }[keyof C];
