package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/event"
)

func (c *cli) auditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Check the audit logs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	verify := &cobra.Command{
		Use:   "verify [FILE...]",
		Short: "Verify the hash chain of audit logs",
		Long: "Verify each FILE, or with none every audit log in $MOTEUR_HOME/audit: every record must chain to\n" +
			"the one before it, so that a record changed, removed or inserted afterwards is found.\n" +
			"Prints \"ok N records  PATH\" for a sound log and \"broken PATH: record I (line L): why\" for the\n" +
			"first bad record of another.\n\n" +
			"Exit status: 0 when every log is sound, 1 when one is broken or unreadable.",
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.auditVerify(args))
		},
	}
	repair := &cobra.Command{
		Use:   "repair FILE",
		Short: "Set aside the torn last record of an audit log so its session can continue",
		Long: "A power loss in the middle of a write can leave an audit log whose last line is incomplete; such a\n" +
			"log is not continued. repair moves that incomplete line to FILE.torn-TIME, kept as evidence, and cuts\n" +
			"the log after its last complete record. Everything before must verify: a chain broken elsewhere is\n" +
			"refused, since that is evidence of a change, not damage.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.auditRepair(args[0]))
		},
	}
	cmd.AddCommand(verify, repair)
	return cmd
}

func (c *cli) auditRepair(path string) error {
	aside, err := event.RepairAudit(path, time.Now())
	if err != nil {
		return err
	}
	n, err := event.VerifyAuditFile(path)
	if err != nil {
		return fmt.Errorf("after the repair: %w", err)
	}
	_, err = fmt.Fprintf(c.stdout, "set the torn record aside in %s\nok %d records  %s\n", aside, n, path)
	return err
}

func (c *cli) auditVerify(files []string) error {
	if len(files) == 0 {
		home, err := dataDir(c.env)
		if err != nil {
			return err
		}
		dir := auditDir(home)
		if files, err = filepath.Glob(filepath.Join(dir, "*.jsonl")); err != nil {
			return fmt.Errorf("list audit logs: %w", err)
		}
		slices.Sort(files)
		if len(files) == 0 {
			_, err := fmt.Fprintf(c.stderr, "no audit logs in %s\n", dir)
			return err
		}
	}
	bad := 0
	for _, path := range files {
		n, err := event.VerifyAuditFile(path)
		var ae *event.AuditError
		var line string
		switch {
		case err == nil:
			line = fmt.Sprintf("ok %d records  %s", n, path)
		case errors.As(err, &ae):
			bad++
			line = fmt.Sprintf("broken %s: record %d (line %d): %s", path, ae.Index, ae.Line, ae.Reason)
		default:
			bad++
			// VerifyAuditFile names the file; so does the cause it wraps.
			if cause := errors.Unwrap(err); cause != nil {
				err = cause
			}
			line = fmt.Sprintf("unreadable %s: %v", path, err)
		}
		if _, err := fmt.Fprintln(c.stdout, line); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d audit logs failed verification", bad, len(files))
	}
	return nil
}
