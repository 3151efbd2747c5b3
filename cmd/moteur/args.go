package main

import "github.com/spf13/cobra"

// The positional-argument checks of the commands: cobra's own (ExactArgs,
// MinimumNArgs…) word their errors in English only. These say the same in
// the run's language, as usage errors.

// noArgs accepts no argument.
func (c *cli) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s", c.trf("takes no argument, got %q", args[0]))
	}
	return nil
}

// exactArgs accepts n arguments.
func (c *cli) exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s", c.trf("takes %d argument(s), got %d", n, len(args)))
		}
		return nil
	}
}

// minArgs accepts n arguments or more.
func (c *cli) minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s", c.trf("takes at least %d argument(s), got %d", n, len(args)))
		}
		return nil
	}
}

// maxArgs accepts at most n arguments.
func (c *cli) maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return usageErrorf("%s", c.trf("takes at most %d argument(s), got %d", n, len(args)))
		}
		return nil
	}
}

// rangeArgs accepts between lo and hi arguments.
func (c *cli) rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usageErrorf("%s", c.trf("takes %d to %d arguments, got %d", lo, hi, len(args)))
		}
		return nil
	}
}
