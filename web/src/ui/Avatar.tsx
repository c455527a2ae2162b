import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { model } from '../model.ts';
import { avatarColor, cx, initials, uploadedAvatarUrl } from '../util.ts';

/**
 * A user's avatar: the image they uploaded, else (or when it fails to load)
 * their initials on their colour. `name` stands in for a user the client
 * does not know (a message's sender_full_name), and `url` for its avatar (the
 * message's avatar_url); a known user's own avatar_url is the current one.
 */
export function Avatar({ userId, name, url, size, children }: { userId: number; name: string; url?: string | null; size?: 'small' | 'large'; children?: ComponentChildren }) {
  const user = model.users.get(userId);
  const src = uploadedAvatarUrl(user ? user.avatar_url : url);
  const [failed, setFailed] = useState<string | null>(null);
  const image = src !== null && failed !== src;
  return (
    <span class={cx('avatar', size, image && 'has-image')} style={image ? undefined : { background: avatarColor(userId) }} aria-hidden="true">
      {image ? <img class="avatar-img" src={src} alt="" onError={() => setFailed(src)} /> : initials(user?.full_name ?? name)}
      {children}
    </span>
  );
}
