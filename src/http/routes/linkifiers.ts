/** Organization linkifiers: GET/PATCH /realm/linkifiers, POST /realm/filters, PATCH/DELETE /realm/filters/{filter_id}. */
import { route } from '../route.ts';
import { p, v } from '../params.ts';
import { addLinkifier, editLinkifier, listLinkifiers, removeLinkifier, reorderLinkifiers } from '../../actions/linkifiers.ts';

/** The parameters of POST /realm/filters and PATCH /realm/filters/{filter_id} (the reverse ones: feature levels 471 and 478). */
const linkifierParams = {
  pattern: p.str(),
  url_template: p.str(),
  example_input: p.str().optional().describe('Text the pattern matches as a whole; needed by reverse_template. Empty: none.'),
  reverse_template: p.str().optional().describe('Turns the example input\'s groups back into it: {name} for a group, {{ and }} for braces. Empty: none.'),
  alternative_url_templates: p.json(v.list(v.str()), 'string[]').optional().describe('More URL templates, read only by reverse linkification.'),
};

const linkifierInput = (a: { pattern: string; url_template: string; example_input?: string; reverse_template?: string; alternative_url_templates?: string[] }) => ({
  pattern: a.pattern,
  urlTemplate: a.url_template,
  exampleInput: a.example_input,
  reverseTemplate: a.reverse_template,
  alternativeUrlTemplates: a.alternative_url_templates,
});

export default [
  route({
    method: 'GET',
    path: '/realm/linkifiers',
    auth: 'user',
    summary: 'Get linkifiers',
    params: {},
    handler: (ctx) => listLinkifiers(ctx.svc),
  }),
  route({
    method: 'PATCH',
    path: '/realm/linkifiers',
    auth: 'user',
    summary: 'Reorder all linkifiers',
    params: { ordered_linkifier_ids: p.intList() },
    handler: async (ctx, a) => {
      await reorderLinkifiers(ctx.svc, ctx.user, a.ordered_linkifier_ids);
    },
  }),
  route({
    method: 'POST',
    path: '/realm/filters',
    auth: 'user',
    summary: 'Add a linkifier',
    params: linkifierParams,
    handler: (ctx, a) => addLinkifier(ctx.svc, ctx.user, linkifierInput(a)),
  }),
  route({
    method: 'PATCH',
    path: '/realm/filters/:filter_id(^\\d+$)',
    auth: 'user',
    summary: 'Update a linkifier',
    pathParams: { filter_id: p.pathInt() },
    params: linkifierParams,
    handler: async (ctx, a) => {
      await editLinkifier(ctx.svc, ctx.user, a.filter_id, linkifierInput(a));
    },
  }),
  route({
    method: 'DELETE',
    path: '/realm/filters/:filter_id(^\\d+$)',
    auth: 'user',
    summary: 'Remove a linkifier',
    pathParams: { filter_id: p.pathInt() },
    params: {},
    handler: async (ctx, a) => {
      await removeLinkifier(ctx.svc, ctx.user, a.filter_id);
    },
  }),
];
