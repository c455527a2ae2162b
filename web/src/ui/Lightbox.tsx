import { Dialog } from './Dialog.tsx';

/** An uploaded image shown whole over the app (a click on its preview in a message), with ways to open or download it; Escape closes it. */
export function Lightbox({ src, name, onClose }: { src: string; name: string; onClose(): void }) {
  return (
    <Dialog id="lightbox-title" title={name} wide="lightbox" onClose={onClose}>
      <img class="lightbox-image" src={src} alt={name} />
      <p class="row-buttons">
        <a class="btn" href={src} target="_blank" rel="noopener noreferrer">
          Open in a new tab
        </a>
        <a class="btn" href={src} download={name}>
          Download
        </a>
      </p>
    </Dialog>
  );
}
