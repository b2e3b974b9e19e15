// Checks reach the validation worker in the order they started, whatever order their waits (the
// environments file) end in: an older one sent after a newer one would replace it there.
import assert from 'node:assert/strict';
import { NewestPerKey } from '../../src/core/newestPerKey';

describe('NewestPerKey', () => {
  /** A check as AgentDiagnostics makes one: started, then a wait it does not control, then sent on if still the newest. */
  function checks() {
    const newest = new NewestPerKey();
    const sent: string[] = [];
    const waits = new Map<string, () => void>();
    const check = async (key: string, version: string): Promise<void> => {
      const turn = newest.start(key);
      await new Promise<void>((resolve) => waits.set(version, resolve));
      if (turn.isNewest()) sent.push(version);
      turn.end();
    };
    const endWait = (version: string) => waits.get(version)!();
    return { check, endWait, sent, newest };
  }

  it('drops an older check whose wait ends after a newer one of the same key, not one of another key', async () => {
    const { check, endWait, sent } = checks();
    const older = check('a.agent.yaml', 'a1');
    const newer = check('a.agent.yaml', 'a2');
    const other = check('b.agent.yaml', 'b1');
    endWait('a2');
    await newer;
    endWait('a1');
    await older;
    endWait('b1');
    await other;
    assert.deepEqual(sent, ['a2', 'b1']);
  });

  it('sends each check started after the one before was sent', async () => {
    const { check, endWait, sent } = checks();
    const first = check('a.agent.yaml', 'a1');
    endWait('a1');
    await first;
    const second = check('a.agent.yaml', 'a2');
    endWait('a2');
    await second;
    assert.deepEqual(sent, ['a1', 'a2']);
  });

  it('forgets a key once its newest call ended, not before: it holds only the calls under way', async () => {
    const { check, endWait, sent, newest } = checks();
    const older = check('a.agent.yaml', 'a1');
    const newer = check('a.agent.yaml', 'a2');
    endWait('a1');
    await older;
    assert.equal(newest.size, 1, 'the newer call is still under way');
    endWait('a2');
    await newer;
    assert.equal(newest.size, 0);
    assert.deepEqual(sent, ['a2']);
  });
});
