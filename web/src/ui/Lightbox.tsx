import { Dialog } from './Dialog.tsx';

/**
 * An uploaded image shown whole over the app (a click on its preview in a
 * message), with ways to open or download it; or, for a YouTube preview
 * (`youtube`: the video's ID), the video played there, as Zulip's lightbox
 * does, with a way to open it on YouTube. Escape closes it.
 */
export function Lightbox({ src, name, youtube, onClose }: { src: string; name: string; youtube?: string; onClose(): void }) {
  const open = youtube ? `https://youtu.be/${youtube}` : src;
  return (
    <Dialog id="lightbox-title" title={name} wide="lightbox" onClose={onClose}>
      {youtube ? (
        <iframe class="lightbox-video" src={`https://www.youtube.com/embed/${youtube}`} title={name} allow="autoplay; encrypted-media; picture-in-picture; fullscreen" allowFullScreen />
      ) : (
        <img class="lightbox-image" src={src} alt={name} />
      )}
      <p class="row-buttons">
        <a class="btn" href={open} target="_blank" rel="noopener noreferrer">
          Open in a new tab
        </a>
        {!youtube && (
          <a class="btn" href={src} download={name}>
            Download
          </a>
        )}
      </p>
    </Dialog>
  );
}
