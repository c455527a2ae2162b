import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, failureText, upload } from '../api.ts';


/**
 * A request started from the page: whether one is under way (`busy`), and
 * why the last one failed (`error`, cleared when the next one starts). `run`
 * says whether it succeeded.
 */
export function useRequest() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(fn: () => Promise<unknown>): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(failureText(err));
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

/** Why something failed, as a line that screen readers announce; nothing without an error. */
export function ErrorLine({ error, inline }: { error: string | null; inline?: boolean }) {
  if (!error) return null;
  return inline ? (
    <span class="form-error" role="alert">
      {error}
    </span>
  ) : (
    <p class="form-error" role="alert">
      {error}
    </p>
  );
}


/** A request with a line under it: what it did, or why it failed. */
export function useAction() {
  const request = useRequest();
  const [done, setDone] = useState<string | null>(null);
  async function run(fn: () => Promise<unknown>, ok: string) {
    setDone(null);
    if (await request.run(fn)) setDone(ok);
  }
  const view = request.error ? (
    <ErrorLine error={request.error} />
  ) : (
    done && (
      <p class="form-ok" role="status">
        {done}
      </p>
    )
  );
  return { run, busy: request.busy, view };
}

/** A form's "<Noun> name" (required) and "<Noun> description" inputs, their IDs starting with `id`. */
export function NameAndDescription(props: { id: string; noun: string; name: string; description: string; maxName: number; onName(v: string): void; onDescription(v: string): void }) {
  return (
    <>
      <label for={`${props.id}-name`}>{props.noun} name</label>
      <input id={`${props.id}-name`} type="text" value={props.name} required maxLength={props.maxName} onInput={(e) => props.onName(e.currentTarget.value)} />
      <label for={`${props.id}-description`}>{props.noun} description</label>
      <input id={`${props.id}-description`} type="text" value={props.description} onInput={(e) => props.onDescription(e.currentTarget.value)} />
    </>
  );
}

/** A question before something not undone: what it does, a button doing it and one cancelling. */
export function Confirm(props: { label: string; text: string; action: string; busy: boolean; onConfirm(): void; onCancel(): void }) {
  return (
    <div class="confirm" role="alertdialog" aria-label={props.label}>
      <span>{props.text}</span>
      <button type="button" class="btn danger small" disabled={props.busy} onClick={props.onConfirm}>
        {props.action}
      </button>
      <button type="button" class="btn small" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

/**
 * A form's last part: its submit button (off while `disabled`), Cancel, and
 * why the server refused; on a line of their own, or small and inline
 * (`inline`: a form in a row, a time form).
 */
export function FormButtons({ submit, disabled, error, onCancel, inline }: { submit: string; disabled: boolean; error: string | null; onCancel(): void; inline?: boolean }) {
  const buttons = (
    <>
      <button type="submit" class={inline ? 'btn primary small' : 'btn primary'} disabled={disabled}>
        {submit}
      </button>
      <button type="button" class={inline ? 'btn small' : 'btn'} onClick={onCancel}>
        Cancel
      </button>
    </>
  );
  return inline ? (
    <>
      {buttons}
      <ErrorLine error={error} inline />
    </>
  ) : (
    <>
      <div class="group-actions">{buttons}</div>
      <ErrorLine error={error} />
    </>
  );
}

/**
 * An uploaded image to choose (an avatar, the organization's icon): what
 * shows now, a file picker that uploads a new one (POST `path`), and, when
 * one was uploaded, a button removing it (DELETE `path`); the server's
 * answer under them. The events bring the change.
 */
export function ImageChoice({
  id,
  label,
  noun,
  path,
  current,
  uploaded,
  disabledWhy,
}: {
  id: string;
  label: string;
  noun: string;
  path: string;
  current: ComponentChildren;
  uploaded: boolean;
  /** Why the image may not be changed (then it is only shown). */
  disabledWhy?: string;
}) {
  const action = useAction();
  return (
    <>
      <label for={id}>{label}</label>
      <div class="row avatar-row">
        {current}
        <div class="avatar-choices">
          <input
            id={id}
            type="file"
            accept="image/*"
            disabled={action.busy || disabledWhy !== undefined}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void action.run(() => upload(file, path), `${noun} uploaded.`);
            }}
          />
          {disabledWhy !== undefined && <p class="muted-text">{disabledWhy}</p>}
          {uploaded && disabledWhy === undefined && (
            <button type="button" class="btn" disabled={action.busy} onClick={() => void action.run(() => api('DELETE', path), `${noun} removed.`)}>
              Remove {noun.toLowerCase()}
            </button>
          )}
        </div>
      </div>
      {action.view}
    </>
  );
}
