/**
 * A progress bar for long command-line work (cli-progress), shown only
 * when stdout is a terminal: redirected output and scripts see the final
 * summary line alone.
 */
import cliProgress from 'cli-progress';
import type { ProgressFn } from '../store/archive.ts';

export interface Progress {
  update: ProgressFn;
  stop(): void;
}

/** `unit` names what is counted ("rows and files"); `bytes` shows the counts in MiB. */
export function progressBar(label: string, unit: string, opts: { bytes?: boolean; stream?: NodeJS.WriteStream } = {}): Progress {
  const stream = opts.stream ?? process.stdout;
  if (!stream.isTTY) return { update: () => {}, stop: () => {} };
  const scale = opts.bytes ? 1024 * 1024 : 1;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted} left`,
      barCompleteChar: '#',
      barIncompleteChar: '-',
      hideCursor: true,
      clearOnComplete: false,
      fps: 5,
      formatValue: (v, _o, type) => (opts.bytes && (type === 'value' || type === 'total') ? (v / scale).toFixed(1) : String(v)),
    },
    cliProgress.Presets.legacy,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(Math.max(total, 1), done);
        started = true;
      } else {
        bar.setTotal(Math.max(total, 1));
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
