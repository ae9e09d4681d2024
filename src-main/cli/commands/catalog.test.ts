import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOG, registerCommands } from './catalog.js';
import { COMMANDS } from './commands.test-support.js';

const program = (): Command => new Command().name('scan2mesh').description('test').exitOverride();

describe('the command catalog (commands loaded when they run)', () => {
  it('lists every command with the name, term and summary of its real definition', async () => {
    const real = program();
    for (const register of COMMANDS) register(real);
    const help = new Help();
    expect(COMMAND_CATALOG.map((c) => c.name)).toEqual(real.commands.map((c) => c.name()));
    for (const entry of COMMAND_CATALOG) {
      const one = program();
      (await entry.load())(one);
      const cmd = one.commands[0]!;
      expect(cmd.name()).toBe(entry.name);
      expect(help.subcommandTerm(cmd)).toBe(entry.term);
      expect(cmd.description()).toBe(entry.summary);
    }
  });

  it('prints the same help as the real commands without loading them', async () => {
    const real = program();
    for (const register of COMMANDS) register(real);
    const light = program();
    await registerCommands(light, ['node', 'scan2mesh', '--help']);
    expect(light.helpInformation()).toBe(real.helpInformation());
  });

  it('registers the real definition of the command named, also after "help"', async () => {
    for (const argv of [
      ['node', 'scan2mesh', 'submit', 'a', '--mesh', 'skull'],
      ['node', 'scan2mesh', 'help', 'submit'],
    ]) {
      const p = program();
      await registerCommands(p, argv);
      expect(p.commands.map((c) => c.name())).toEqual(['submit']);
      // The real one: it has its options, which the list entry has not.
      expect(p.commands[0]!.options.map((o) => o.long)).toContain('--mesh');
    }
  });
});
