/** The commands' progress bar: drawn on a terminal's stderr only, with cli-progress loaded only then. */
import { describe, expect, it } from 'vitest';
import { progressBarOn } from '../../src/cli/progress-bar.js';

describe('progressBarOn', () => {
  it('gives no bar when stderr is not a terminal', async () => {
    expect(await progressBarOn({ isTTY: false }, 'x {value}/{total}')).toBeUndefined();
    expect(await progressBarOn({}, 'x {value}/{total}')).toBeUndefined();
  });

  it('draws the format on a terminal', async () => {
    let written = '';
    const terminal = { isTTY: true, columns: 80, write: (text: string) => ((written += text), true), cursorTo: () => true, clearLine: () => true, moveCursor: () => true, on: () => terminal, removeListener: () => terminal };
    const bar = await progressBarOn(terminal, 'spider [{bar}] {value}/{total} items');
    expect(bar).toBeDefined();
    bar!.start(4, 0);
    bar!.update(4);
    bar!.stop();
    expect(written).toContain('4/4 items');
  });
});
