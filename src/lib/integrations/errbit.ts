/**
 * Errbit (/api/v1/external/errbit): a problem reported by an app, its error
 * class linked to the problem in Errbit, with the error's message. Topic:
 * `<app> / <environment>`.
 */
import { jsonPayload, type Integration, type WebhookMessage } from './types.ts';

export const errbit: Integration = {
  name: 'Errbit',
  handle(req): WebhookMessage[] {
    const problem = jsonPayload(req).at('problem');
    const topic = `${problem.at('app_name').str()} / ${problem.at('environment').str()}`;
    const url = problem.at('url').str();
    const body = `[${problem.at('error_class').str()}](${url}): "${problem.at('message').str()}" occurred.`;
    return [{ topic, body }];
  },
};
