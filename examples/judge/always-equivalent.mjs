// A promptfoo `file://` judge that answers "equivalent" to every pair: the lean published judges
// show, taken to its end. `text2sql-ladder judge calibrate` measures it (TNR 0, kappa 0) and
// writes a failing record, so the ladder never counts its verdicts. No network.
export default class AlwaysEquivalent {
  id() {
    return 'file://examples/judge/always-equivalent.mjs';
  }

  async callApi(prompt) {
    return {
      output: 'The queries look alike.\n{"differences": [], "equivalent": true}',
      tokenUsage: { prompt: Math.ceil(prompt.length / 4), completion: 12, total: Math.ceil(prompt.length / 4) + 12 },
    };
  }
}
