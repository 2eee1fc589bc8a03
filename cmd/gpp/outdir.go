package main

// An output directory holds the files of one gpp run. Every command that
// writes one (fit, fit --prior, sample, predict, kfold, sbc) removes with
// its commit the files that any gpp command may have written there before
// and that it does not write itself (staleInDir), so that no file of an
// earlier run of another command is left looking like this run's; and a
// run that holds the directory's lock removes the temporary files that a
// killed run left there (removeOrphans). fit.json is the manifest of a
// fit's files: a commit removes the old one first and renames the new one
// last (staged.commit), so a directory whose fit.json exists holds
// exactly the files it lists, of the run that wrote it, and one without
// fit.json is incomplete.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gpplang/gpp/internal/fitfile"
)

// anyOutputName matches the name of every file that a gpp command writes
// into its output directory: gpp fit's (outputName), gpp sample's and
// gpp predict's (coords.csv, against.csv, the MCMC plots, metric_N.json,
// lppd.csv),
// gpp kfold's (kfold.csv, kfold.json) and gpp sbc's (ranks.csv,
// failed.csv, NAME_ranks.png).
var anyOutputName = regexp.MustCompile(`^(` + strings.Join([]string{
	outputName.String(),
	samplePlotName.String(),
	metricFileRe.String(),
	`^(` + strings.Join([]string{
		regexp.QuoteMeta(coordsFile), regexp.QuoteMeta(againstFile), regexp.QuoteMeta(lppdFile),
		regexp.QuoteMeta(kfoldFile), regexp.QuoteMeta(kfoldMetaFile),
		regexp.QuoteMeta(sbcRanksFile), regexp.QuoteMeta(sbcFailedFile),
		`[A-Za-z_][A-Za-z0-9_]*_ranks\.png`,
	}, "|") + `)$`,
}, "|") + `)$`)

// gppOutDir reports whether dir holds the outputs of a gpp run: a fit.json
// or kfold.json of gpp's format, or a draws.csv or coords.csv that gpp
// wrote (its first line gives gpp_version). Files named as gpp's outputs
// in another directory are the user's, and no run removes them.
func gppOutDir(dir string) bool {
	for name, format := range map[string]string{fitFileName: fitfile.Format, kfoldMetaFile: kfoldFormat} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var head struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &head) == nil && head.Format == format {
			return true
		}
	}
	for _, name := range []string{drawsFile, coordsFile} {
		if strings.HasPrefix(string(fileHead(filepath.Join(dir, name))), "# gpp_version = ") {
			return true
		}
	}
	return false
}

// staleInDir returns the files of the earlier run in dir (runFiles) that
// names, the files of the run being written, does not hold: those the
// commit removes. A directory of other files gives none.
func staleInDir(dir string, names []string) []string {
	return slices.DeleteFunc(runFiles(dir), func(n string) bool { return slices.Contains(names, n) })
}

// runFiles returns the names of the files in dir that the gpp run whose
// outputs it holds wrote, as far as gpp can tell. A fit.json (or a gpp
// kfold's kfold.json) lists them: the regular files it lists that are
// named as gpp outputs (anyOutputName), itself among them, and no other
// file, so that a user's loo.csv beside a fit that wrote none is not the
// fit's. Without such a list (gpp sample's and gpp predict's directories,
// which have no manifest), every regular file named as a gpp output, when
// dir holds a gpp run's outputs (gppOutDir); a directory of other files
// gives none.
func runFiles(dir string) []string {
	if names, ok := listedRunFiles(dir); ok {
		return names
	}
	if !gppOutDir(dir) {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); anyOutputName.MatchString(n) && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	return names
}

// listedRunFiles returns the files of the gpp run in dir that its
// fit.json or kfold.json lists (runFiles), and whether dir has such a
// list.
func listedRunFiles(dir string) ([]string, bool) {
	for _, m := range []struct{ name, format string }{{fitFileName, fitfile.Format}, {kfoldMetaFile, kfoldFormat}} {
		b, err := os.ReadFile(filepath.Join(dir, m.name))
		if err != nil {
			continue
		}
		var head struct {
			Format string   `json:"format"`
			Files  []string `json:"files"`
		}
		if json.Unmarshal(b, &head) != nil || head.Format != m.format || len(head.Files) == 0 {
			continue
		}
		names := []string{m.name}
		for _, n := range head.Files {
			if n != m.name && !slices.Contains(names, n) && anyOutputName.MatchString(n) && regularFile(filepath.Join(dir, n)) {
				names = append(names, n)
			}
		}
		return names, true
	}
	return nil, false
}

// regularFile reports whether path is a regular file, not a link to one.
func regularFile(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// runInputs returns the files of the gpp run in each of dirs (runFiles)
// as inputs that a command reading that run must not overwrite.
func runInputs(dirs ...string) []inputFile {
	var ins []inputFile
	for _, dir := range dirs {
		for _, n := range runFiles(dir) {
			ins = append(ins, inputFile{"the gpp run's file", filepath.Join(dir, n)})
		}
	}
	return ins
}

// fileClash reports the first of inputs that writing the file out, given
// by flag (--out, --csv), would overwrite: gpp summary and gpp compare
// refuse it before writing anything.
func fileClash(flag, out string, inputs []inputFile) error {
	for _, in := range inputs {
		if sameFile(out, in.path) {
			return fmt.Errorf("%s %s would overwrite an input, %s %s: give another file", flag, out, in.what, in.path)
		}
	}
	return nil
}

// orphanName matches the temporary files of gpp's commits (staged.write's
// .NAME.tmp-N, staged.commit's .NAME.old-N) of an output NAME: those
// that a run killed before its commit finished leaves behind.
var orphanName = regexp.MustCompile(`^\.(.+)\.(tmp|old)-[0-9]+$`)

// removeOrphans removes the temporary files of gpp's commits in dir
// (orphanName) left by a run that was killed. Only a run that holds dir's
// lock calls it, so no other run is writing them.
func removeOrphans(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		m := orphanName.FindStringSubmatch(e.Name())
		if m != nil && anyOutputName.MatchString(m[1]) && e.Type().IsRegular() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
