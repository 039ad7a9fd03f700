/**
 * Short answers about cloud_a without a model (the built-in provider): per service read of the
 * context plan, the count, the states and the names, from the catalogue's records (reads.ts).
 */
import { AWS_CATALOGUE } from './reads.js';

/** One paragraph per aws step result; steps the catalogue does not know are left out. */
export function answerAwsResults(question: string, results: readonly { args: readonly string[]; data: unknown }[]): string[] {
  return AWS_CATALOGUE.answer(question, results);
}
