/**
 * Website previews (Zulip's embed_links worker and do_update_embedded_data).
 * A message sent or edited with links that may get a preview (the render's
 * linksForPreview) has them fetched after the request, off its path; the
 * message is then rendered again with what their pages say and, if that
 * changed its HTML and its content is still the same, the HTML is stored and
 * an update_message event with rendering_only goes to those who see the
 * message (as for any change to it).
 */
import pLimit from 'p-limit';
import type { Services } from '../services.ts';
import { linkEmbedData } from '../lib/url-preview.ts';
import type { EmbedData } from '../markdown/previews.ts';
import { messageById } from '../store/messages.ts';
import { updateRenderedContent } from '../store/message-edit.ts';
import { transaction } from '../store/db.ts';
import { messageEventRecipients } from './access.ts';
import { cachedUsers } from './cache.ts';
import { render } from './messages-format.ts';

/** Pages fetched at once by this process, whatever the number of messages waiting for theirs. */
const fetching = pLimit(4);

/** Starts the previews of a message's links (`content`: the content they were found in); never throws. */
export function embedLinksLater(svc: Services, messageId: number, content: string, urls: readonly string[] | undefined): void {
  if (!urls?.length) return;
  embedLinks(svc, messageId, content, urls).catch((err: unknown) => svc.log.warn({ err, messageId }, 'website previews failed'));
}

async function embedLinks(svc: Services, messageId: number, content: string, urls: readonly string[]): Promise<void> {
  const known = new Map<string, EmbedData | null>();
  const opts = { allowPrivate: svc.config.urlPreviewPrivateAddresses, serverUrl: svc.config.externalUrl };
  for (const url of urls) known.set(url, await fetching(() => linkEmbedData(url, opts)));
  const row = await messageById(svc.store.db, svc.realmId, messageId);
  // Edited meanwhile: that edit's own previews follow.
  if (!row || row.content !== content) return;
  const sender = (await cachedUsers(svc)).byId.get(row.sender_id);
  const rendered = await render(svc, svc.store.db, content, undefined, undefined, { byBot: !!sender?.is_bot, known });
  if (rendered.html === row.rendered_content) return;
  const recipients = await transaction(svc.store, async (tx) => {
    if (!(await updateRenderedContent(tx, messageId, content, rendered.html))) return null;
    return messageEventRecipients(svc, tx, row);
  });
  if (!recipients) return;
  svc.bus.send(
    {
      type: 'update_message',
      user_id: null,
      edit_timestamp: Math.floor(Date.now() / 1000),
      message_id: messageId,
      message_ids: [messageId],
      content,
      rendered_content: rendered.html,
      rendering_only: true,
    },
    recipients,
  );
}
