/** Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{playground_id}. */
import { route } from '../route.ts';
import { p } from '../params.ts';
import { addPlayground, removePlayground } from '../../actions/playgrounds.ts';

export default [
  route({
    method: 'POST',
    path: '/realm/playgrounds',
    auth: 'user',
    summary: 'Add a code playground',
    params: { name: p.str(), pygments_language: p.str(), url_template: p.str() },
    handler: (ctx, a) => addPlayground(ctx.svc, ctx.user, { name: a.name, pygmentsLanguage: a.pygments_language, urlTemplate: a.url_template }),
  }),
  route({
    method: 'DELETE',
    path: '/realm/playgrounds/:playground_id(^\\d+$)',
    auth: 'user',
    summary: 'Remove a code playground',
    pathParams: { playground_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removePlayground(ctx.svc, ctx.user, a.playground_id);
    },
  }),
];
