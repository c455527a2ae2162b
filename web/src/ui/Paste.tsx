/**
 * A paste into the compose or edit box (`usePaste`): files are uploaded into
 * the text; text goes through `pasteText` (Zulip's conversions); after a long
 * paste, Zulip's offer: "Do you want to convert the pasted text into a
 * file?" (Yes, convert: the text goes back to what it was and the paste is
 * uploaded as PastedText.txt); for a very long one, nothing is pasted until
 * the user picks "Paste" or "Convert". The offer goes with the next thing
 * typed.
 */
import { useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { insertConverted, insertingPaste, pasteText, type LongPaste } from '../paste.ts';

export function usePaste({ textRef, setText, uploadFiles }: { textRef: RefObject<HTMLTextAreaElement | null>; setText(text: string): void; uploadFiles(files: File[]): void }) {
  const [offer, setOffer] = useState<LongPaste | null>(null);
  /** Whether typing ends the offer: not the paste's own input, which follows it at once (as Zulip's, armed a moment later). */
  const armed = useRef(false);
  const offerFor = (p: LongPaste) => {
    armed.current = false;
    setOffer(p);
    setTimeout(() => (armed.current = true), 0);
  };
  const convert = (p: LongPaste) => {
    setOffer(null);
    // As Zulip's: the text as it was before the paste, the paste a file.
    if (p.pasted) setText(p.before);
    uploadFiles([new File([p.plain], 'PastedText.txt', { type: 'text/plain' })]);
  };
  const banner = offer && (
    <div class="compose-banner" role="status">
      <span>{offer.pasted ? 'Do you want to convert the pasted text into a file?' : 'Paste text directly or convert to a file?'}</span>
      {!offer.pasted && (
        <button
          type="button"
          class="btn small"
          onClick={() => {
            setOffer(null);
            if (textRef.current) insertConverted(textRef.current, offer.html, offer.plain);
          }}
        >
          Paste
        </button>
      )}
      <button type="button" class="btn small" onClick={() => convert(offer)}>
        {offer.pasted ? 'Yes, convert' : 'Convert'}
      </button>
      <button type="button" class="icon-btn" aria-label="Dismiss" onClick={() => setOffer(null)}>
        ×
      </button>
    </div>
  );
  return {
    /** The box's paste. */
    onPaste(ev: ClipboardEvent & { currentTarget: HTMLTextAreaElement }) {
      const files = ev.clipboardData?.files;
      if (files && files.length) {
        ev.preventDefault();
        uploadFiles(Array.from(files));
      } else pasteText(ev, ev.currentTarget, offerFor);
    },
    banner,
    /** The box's input: anything typed (not the paste's own insertion) ends the offer. */
    onInput: () => {
      if (offer && armed.current && !insertingPaste()) setOffer(null);
    },
  };
}
