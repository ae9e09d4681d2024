import { expect } from 'vitest';
import { AppError } from './errors.js';

/** The AppError a promise is rejected with; fails the test when it settles otherwise. */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}
