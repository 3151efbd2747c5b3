package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/kb"
)

// keysCmd manages the API keys of moteur serve.
func (c *cli) keysCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: c.tr("Create, list and remove the API keys of moteur serve"),
		Long: c.tr("moteur serve answers only requests with a key (X-API-Key: KEY or Authorization: Bearer KEY). A key\n" +
			"may be limited to some knowledge bases and agents. Keys live in $MOTEUR_HOME/moteur.db, where only\n" +
			"a SHA-256 of each secret is stored: the secret is shown once, when the key is made."),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(c.keysCreateCmd(g), c.keysListCmd(), c.keysRmCmd())
	return cmd
}

// withKeys runs fn with the keys open (withStore).
func (c *cli) withKeys(ctx context.Context, create bool, fn func(*apikey.Store) error) error {
	return withStore(ctx, c, create, func(ctx context.Context, db app.Database) (*apikey.Store, error) {
		return db.Keys(ctx)
	}, fn)
}

// keyError maps the keys' errors to exit statuses: a key that does not
// exist or a name taken is the user's mistake (2), the rest a failure.
func keyError(err error) error {
	if errors.Is(err, apikey.ErrNotFound) || errors.Is(err, apikey.ErrExists) {
		return &statusError{code: exitUsage, err: err}
	}
	return failure(err)
}

func (c *cli) keysCreateCmd(g *globalFlags) *cobra.Command {
	var sc apikey.Scope
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: c.tr("Make an API key and print its secret, once"),
		Long: c.tr("Make an API key named NAME and print its secret on standard output: it is shown this once and cannot\n" +
			"be recovered (only its SHA-256 is stored); lost, remove the key and make another. --kb limits the key\n" +
			"to those knowledge bases and --agent to those agents (an id or a name, stored as the agent's id);\n" +
			"without them it reaches every base and every agent. --wait-approvals lets its requests to the\n" +
			"OpenAI-compatible door wait for a person's approval instead of being refused."),
		Example: "  moteur keys create laptop\n" +
			"  moteur keys create support-bot --kb docs --agent support --json",
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.keysCreate(cmd.Context(), g, args[0], sc, asJSON))
		},
	}
	cmd.Flags().StringArrayVar(&sc.Bases, "kb", nil, c.tr("a knowledge base the key may use (repeat; default: every base)"))
	cmd.Flags().StringArrayVar(&sc.Agents, "agent", nil, c.tr("an agent the key may use, by id or name (repeat; default: every agent)"))
	cmd.Flags().BoolVar(&sc.Wait, "wait-approvals", false, c.tr("requests may wait for a person's approval"))
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the key and its secret as one JSON object"))
	return cmd
}

func (c *cli) keysCreate(ctx context.Context, g *globalFlags, name string, sc apikey.Scope, asJSON bool) error {
	if err := c.checkBases(ctx, g, sc.Bases); err != nil {
		return err
	}
	agents, err := c.agentIDs(ctx, g, sc.Agents)
	if err != nil {
		return err
	}
	sc.Agents = agents
	return c.withKeys(ctx, true, func(s *apikey.Store) error {
		secret, k, err := s.Create(ctx, name, sc)
		if err != nil {
			return keyError(err)
		}
		if asJSON {
			err = c.writeJSON(keyWithSecret(k, secret))
		} else {
			_, err = fmt.Fprintln(c.stdout, secret)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, c.tr("moteur: created API key %s (%s), %s. Its secret is shown this once: store it now.\n"),
			k.Name, k.ID, c.scopeText(k.Scope))
		return nil
	})
}

// checkBases refuses a base that does not exist: a typo would make a key
// that can never use it.
func (c *cli) checkBases(ctx context.Context, g *globalFlags, bases []string) error {
	if len(bases) == 0 {
		return nil
	}
	return c.withKB(ctx, g, func(s *kb.Store) error {
		for _, b := range bases {
			if _, err := s.Base(ctx, b); err != nil {
				return kbError(fmt.Errorf("--kb: %w", err))
			}
		}
		return nil
	})
}

// agentIDs resolves each --agent to its agent's id.
func (c *cli) agentIDs(ctx context.Context, g *globalFlags, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	st, err := c.listSettings(g, nil)
	if err != nil {
		return nil, err
	}
	var ids []string
	err = c.withAgents(ctx, false, func(s *agentstore.Store) error {
		for _, ref := range refs {
			a, err := resolveAgent(ctx, s, ref, st.Lang)
			if err != nil {
				return fmt.Errorf("--agent: %w", err)
			}
			ids = append(ids, a.ID)
		}
		return nil
	})
	return ids, err
}

// scopeText says, for a person, what a key reaches.
func (c *cli) scopeText(sc apikey.Scope) string {
	// "all" reads as a word of the sentence here, not as the table's value.
	bases, agents := c.tr("bases: all"), c.tr("agents: all")
	if len(sc.Bases) > 0 {
		bases = c.trf("bases: %s", strings.Join(sc.Bases, ","))
	}
	if len(sc.Agents) > 0 {
		agents = c.trf("agents: %s", strings.Join(sc.Agents, ","))
	}
	parts := []string{bases, agents}
	if sc.Wait {
		parts = append(parts, c.tr("may wait for approvals"))
	}
	return strings.Join(parts, c.tr("; "))
}

func listOrAll(l []string) string {
	if len(l) == 0 {
		return "all"
	}
	return strings.Join(l, ",")
}

func (c *cli) keysListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: c.tr("List the API keys (never their secrets)"),
		Args:  c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.withKeys(cmd.Context(), false, func(s *apikey.Store) error {
				var keys []apikey.Key
				var err error
				if s != nil {
					if keys, err = s.List(cmd.Context()); err != nil {
						return failure(err)
					}
				}
				if asJSON {
					if keys == nil {
						keys = []apikey.Key{}
					}
					return c.writeJSON(keys)
				}
				if len(keys) == 0 {
					_, err := fmt.Fprintln(c.stdout, c.tr("No API key yet. Make one with: moteur keys create NAME"))
					return err
				}
				tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tID\tBASES\tAGENTS\tWAIT\tCREATED")
				for _, k := range keys {
					wait := "no"
					if k.Scope.Wait {
						wait = "yes"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.Name, k.ID, oneLine(listOrAll(k.Scope.Bases), 40),
						oneLine(listOrAll(k.Scope.Agents), 40), wait, k.Created.Local().Format("2006-01-02 15:04"))
				}
				return tw.Flush()
			}))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the keys as a JSON array"))
	return cmd
}

func (c *cli) keysRmCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "rm NAME|ID",
		Aliases: []string{"revoke"},
		Short:   c.tr("Remove (revoke) an API key: it stops working at once"),
		Example: "  moteur keys rm laptop",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.withKeys(cmd.Context(), true, func(s *apikey.Store) error {
				if err := s.Revoke(cmd.Context(), args[0]); err != nil {
					return keyError(err)
				}
				_, err := fmt.Fprintf(c.stdout, c.tr("Removed API key %s: it no longer works.\n"), args[0])
				return err
			}))
		},
	}
}

// keyWithSecret is the key's JSON with "secret" added. (Embedding Key in a
// struct would not do: its MarshalJSON would be promoted and drop the
// secret.)
func keyWithSecret(k apikey.Key, secret string) map[string]any {
	data, _ := json.Marshal(k)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	m["secret"] = secret
	return m
}
