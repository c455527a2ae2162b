import { useRef, useState } from 'preact/hooks';
import { api, upload } from '../api.ts';
import { model } from '../model.ts';
import { isAdministrator } from './Organization.tsx';
import { ErrorLine, useAction, useRequest } from './request.tsx';

/** The image types the server takes for a custom emoji. */
const EMOJI_TYPES = 'image/png,image/gif,image/jpeg,image/webp,image/avif';

/**
 * The organization's custom emoji: the active ones, each with who added it;
 * adding one (POST /realm/emoji/{name} with the image), for those
 * can_add_custom_emoji_group takes in; deactivating one (DELETE
 * /realm/emoji/{name}), offered to administrators and the emoji's author,
 * as the server allows. The list follows the realm_emoji events, so changes
 * made elsewhere show at once; the server says why when it refuses.
 */
export function CustomEmoji() {
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const add = useAction();
  const change = useRequest();
  const me = model.me.user_id;
  const admin = isAdministrator(model.me);
  const setting = model.realm.realm_can_add_custom_emoji_group;
  const mayAdd = setting === undefined || model.allows(me, setting);
  const emoji = [...model.realmEmoji.values()].filter((e) => !e.deactivated).sort((a, b) => a.name.localeCompare(b.name));

  return (
    <section aria-labelledby="emoji-title">
      <h2 id="emoji-title">Custom emoji</h2>
      {mayAdd ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!file) return;
            void add.run(async () => {
              await upload(file, `/realm/emoji/${encodeURIComponent(name.trim())}`);
              setName('');
              setFile(null);
              if (fileInput.current) fileInput.current.value = '';
            }, 'Emoji added.');
          }}
        >
          <label for="emoji-name">Emoji name</label>
          <input id="emoji-name" type="text" value={name} required placeholder="party_parrot" onInput={(e) => setName(e.currentTarget.value)} />
          <label for="emoji-file">Emoji image</label>
          <input id="emoji-file" ref={fileInput} type="file" accept={EMOJI_TYPES} required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          <button type="submit" class="btn primary" disabled={add.busy || !file}>
            Add emoji
          </button>
          {add.view}
        </form>
      ) : (
        <p class="muted-text">The organization's settings do not let you add custom emoji.</p>
      )}
      <ErrorLine error={change.error} />
      {emoji.length === 0 ? (
        <p class="muted-text">No custom emoji yet.</p>
      ) : (
        <ul class="emoji-list" aria-label="Custom emoji">
          {emoji.map((e) => (
            <li key={e.id} aria-label={e.name}>
              <img class="emoji-img custom-emoji-image" src={e.source_url} alt={`:${e.name}:`} />
              <span class="org-person">
                <code>:{e.name}:</code> <span class="muted-text">{e.author_id == null ? '' : `added by ${model.userName(e.author_id)}`}</span>
              </span>
              {(admin || e.author_id === me) && (
                <button type="button" class="btn" disabled={change.busy} onClick={() => void change.run(() => api('DELETE', `/realm/emoji/${encodeURIComponent(e.name)}`))}>
                  Deactivate :{e.name}:
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
