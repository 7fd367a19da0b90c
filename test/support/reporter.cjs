// Spec output plus one closing line in the plain "N passed, N failed, N skipped"
// form that CI reads, since mocha's own summary is not one it knows.
const Mocha = require('mocha');

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`);
    });
  }
}
module.exports = SpecWithSummary;
