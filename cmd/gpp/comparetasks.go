package main

import (
	"fmt"
	"math"
	"strings"
)

// heldOutTask names the prediction task a compared fit's elpd estimates:
// "" for a new observation of the groups the data hold (PSIS-LOO, WAIC,
// a K-fold whose folds split observations), the --group of a grouped
// K-fold for the observations of a new group (leave-group-out).
func heldOutTask(f *looFit) string { return f.group }

// mixedTasks reports whether ranks estimate more than one prediction task
// (heldOutTask). A sensory scientist's trial compared a K-fold leaving
// out whole consumers with PSIS-LOO of the same model and read elpd_diff
// −232.7 ± 21.4 and weights 0.987 / 0.013 as a preference: the two
// estimate different quantities, and neither a difference nor a weight
// between them is a comparison of models.
func mixedTasks(ranks []looRank) bool {
	for _, r := range ranks[1:] {
		if heldOutTask(r.fit) != heldOutTask(ranks[0].fit) {
			return true
		}
	}
	return false
}

// unrankTasks sets elpd_diff and se_diff to NaN for each fit whose task
// differs from the best's: it is no preference between them.
func unrankTasks(ranks []looRank) {
	for j := range ranks {
		if heldOutTask(ranks[j].fit) != heldOutTask(ranks[0].fit) {
			ranks[j].diff, ranks[j].seDiff = math.NaN(), math.NaN()
		}
	}
}

// taskText names a task for the notes: the held-out unit.
func taskText(group string) string {
	if group == "" {
		return "a new observation of the groups in the data (leave-one-out)"
	}
	return "the observations of a new " + group + " (leave-" + group + "-out, gpp kfold --group " + group + ")"
}

// taskNote says, where ranks mix tasks, which fit estimates which and
// that neither weights nor elpd_diff are given between them ("": one task).
func taskNote(ranks []looRank) string {
	if !mixedTasks(ranks) {
		return ""
	}
	byTask := map[string][]string{}
	var order []string
	for _, r := range ranks {
		t := heldOutTask(r.fit)
		if _, ok := byTask[t]; !ok {
			order = append(order, t)
		}
		byTask[t] = append(byTask[t], r.fit.label)
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, strings.Join(byTask[t], ", ")+": "+taskText(t))
	}
	return fmt.Sprintf("these fits estimate the elpd of different prediction tasks (%s): "+
		"a held-out group's elpd is lower by what is not known of a new group, not by a worse model, "+
		"so the table gives no weights and no elpd_diff between fits of different tasks (grouped K-fold rows marked #); "+
		"compare fits of one task: gpp kfold with the same --group for each model, or each model's PSIS-LOO (or plain gpp kfold)",
		strings.Join(parts, "; "))
}
