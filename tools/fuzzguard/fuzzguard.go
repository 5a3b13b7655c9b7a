// Package fuzzguard finds the parsers of the suite — the functions that
// turn untrusted bytes into domain input — and the Go fuzz targets that
// reach them, so that a test can fail on a parser no fuzz target calls.
//
// The rule, applied with go/parser and go/ast to every non-test Go file
// under pkg/ and services/ (test-support packages, whose directory name
// ends in "test" or "fake", and cmd/ mains are left out):
//
//   - A parser is a function or method whose name starts with Parse,
//     Decode, Unmarshal, Bind or From, or contains Read…Body (the first
//     letter in either case, so unexported parsers count too), and that
//     takes untrusted input: a parameter or receiver of type []byte,
//     string, io.Reader, json.RawMessage, url.Values, *fiber.Ctx,
//     kafka.Message, events.Event, *multipart.Form or *multipart.Part.
//     UnmarshalJSON and UnmarshalText methods are left out: encoding/json
//     calls them, never our code by name, so the parser that decodes the
//     enclosing value is the one that needs the target.
//   - A parser is covered when a Fuzz* function of a _test.go file reaches
//     it through calls (or references, such as a parser passed as a
//     value) resolved by name: a plain identifier to the function of the
//     same package, pkg.Name to the imported package's function, x.Name
//     to the methods called Name of the same package or of a package the
//     file imports. From a production function that is not a parser, only
//     parsers and functions of its own package are followed, so a target
//     that starts a whole service covers what that service's package
//     parses, not every parser of the service. A helper parser called
//     only from a covered parser is covered by its caller's target.
package fuzzguard

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Parser is one parser found in the tree.
type Parser struct {
	Key     string // import path, then [Recv.]Name
	Pos     string // file:line, relative to the root
	Targets []string
}

// Report is what Scan finds.
type Report struct {
	Parsers []Parser
	Targets []string // every Fuzz* function, as import path.Name
}

var nameRule = regexp.MustCompile(`^(?:[Pp]arse|[Dd]ecode|[Uu]nmarshal|[Bb]ind|[Ff]rom)|^[Rr]ead\w*Body`)

// untrusted reports whether a parameter type expression is one of the
// input types of the rule.
func untrusted(expr ast.Expr) bool {
	switch t := expr.(type) {
	case *ast.Ident:
		return t.Name == "string"
	case *ast.ArrayType:
		id, ok := t.Elt.(*ast.Ident)
		return t.Len == nil && ok && id.Name == "byte"
	case *ast.StarExpr:
		return untrusted(t.X)
	case *ast.SelectorExpr:
		pkg, ok := t.X.(*ast.Ident)
		if !ok {
			return false
		}
		return untrustedNamed[pkg.Name+"."+t.Sel.Name]
	}
	return false
}

// untrustedNamed are the named input types of the rule, as package.Type.
var untrustedNamed = map[string]bool{
	"io.Reader": true, "json.RawMessage": true, "url.Values": true, "fiber.Ctx": true, "kafka.Message": true,
	"events.Event": true, "multipart.Form": true, "multipart.Part": true,
}

type fileFunc struct {
	key  string
	decl *ast.FuncDecl
	file *fileInfo
}

type fileInfo struct {
	pkgKey  string // import path, +"_test" for an external test package
	pkgPath string // import path of the directory
	imports map[string]string
	test    bool
}

// Scan walks root's pkg/ and services/ trees.
func Scan(root string) (Report, error) {
	fset := token.NewFileSet()
	var funcs []fileFunc
	methods := map[string][]string{} // import path + "." + method name -> keys
	known := map[string]bool{}
	for _, top := range []string{"pkg", "services"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				n := d.Name()
				if n == "testdata" || n == "migrations" || n == "cmd" || strings.HasSuffix(n, "test") || strings.HasSuffix(n, "fake") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") {
				return nil
			}
			dir := filepath.Dir(path)
			pkgPath, err := importPath(dir)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			fi := &fileInfo{pkgPath: pkgPath, pkgKey: pkgPath, imports: map[string]string{}, test: strings.HasSuffix(path, "_test.go")}
			if strings.HasSuffix(f.Name.Name, "_test") {
				fi.pkgKey = pkgPath + "_test"
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				} else if strings.HasPrefix(name, "v") && strings.Count(p, "/") > 0 {
					if _, err := strconv.Atoi(name[1:]); err == nil { // gofiber/fiber/v2
						rest := p[:strings.LastIndex(p, "/")]
						name = rest[strings.LastIndex(rest, "/")+1:]
					}
				}
				fi.imports[name] = p
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				key := fi.pkgKey + "." + fd.Name.Name
				if r := recvName(fd); r != "" {
					key = fi.pkgKey + "." + r + "." + fd.Name.Name
					methods[fi.pkgKey+"."+fd.Name.Name] = append(methods[fi.pkgKey+"."+fd.Name.Name], key)
				}
				known[key] = true
				funcs = append(funcs, fileFunc{key: key, decl: fd, file: fi})
			}
			return nil
		})
		if err != nil {
			return Report{}, err
		}
	}

	edges := map[string][]string{}
	for _, fn := range funcs {
		fi := fn.file
		seen := map[string]bool{}
		add := func(k string) {
			if known[k] && !seen[k] {
				seen[k] = true
				edges[fn.key] = append(edges[fn.key], k)
			}
		}
		ast.Inspect(fn.decl.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					if p, ok := fi.imports[id.Name]; ok {
						add(p + "." + x.Sel.Name)
						return false
					}
				}
				for _, k := range methods[fi.pkgKey+"."+x.Sel.Name] {
					add(k)
				}
				for _, k := range methods[fi.pkgPath+"."+x.Sel.Name] {
					add(k)
				}
				for _, p := range fi.imports {
					for _, k := range methods[p+"."+x.Sel.Name] {
						add(k)
					}
				}
			case *ast.Ident:
				add(fi.pkgKey + "." + x.Name)
				if fi.pkgKey != fi.pkgPath {
					add(fi.pkgPath + "." + x.Name)
				}
			}
			return true
		})
	}

	var rep Report
	byKey := map[string]fileFunc{}
	parsers := map[string]bool{}
	for _, fn := range funcs {
		byKey[fn.key] = fn
		parsers[fn.key] = !fn.file.test && isParser(fn.decl, fn.file.pkgPath)
	}
	reach := map[string][]string{} // parser key -> targets
	for _, fn := range funcs {
		if !fn.file.test || !strings.HasPrefix(fn.decl.Name.Name, "Fuzz") || fn.decl.Recv != nil {
			continue
		}
		target := strings.TrimSuffix(fn.file.pkgKey, "_test") + "." + fn.decl.Name.Name
		rep.Targets = append(rep.Targets, target)
		visited := map[string]bool{fn.key: true}
		stack := []string{fn.key}
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			reach[k] = append(reach[k], target)
			for _, next := range edges[k] {
				// From a production function that is not a parser (a
				// handler, a constructor) only parsers and functions of
				// its own package are followed: a target that builds a
				// whole service does not thereby cover every parser the
				// service's other packages hold.
				if visited[next] || !byKey[k].file.test && !parsers[k] && !parsers[next] &&
					byKey[k].file.pkgPath != byKey[next].file.pkgPath {
					continue
				}
				visited[next] = true
				stack = append(stack, next)
			}
		}
	}
	for _, fn := range funcs {
		if fn.file.test || !isParser(fn.decl, fn.file.pkgPath) {
			continue
		}
		pos := fset.Position(fn.decl.Pos())
		rel, _ := filepath.Rel(root, pos.Filename)
		targets := reach[fn.key]
		sort.Strings(targets)
		rep.Parsers = append(rep.Parsers, Parser{Key: fn.key, Pos: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line), Targets: targets})
	}
	sort.Slice(rep.Parsers, func(i, j int) bool { return rep.Parsers[i].Pos < rep.Parsers[j].Pos })
	sort.Strings(rep.Targets)
	return rep, nil
}

func isParser(fd *ast.FuncDecl, pkgPath string) bool {
	name := fd.Name.Name
	if !nameRule.MatchString(name) || name == "UnmarshalJSON" || name == "UnmarshalText" {
		return false
	}
	if fd.Recv != nil {
		// A method of an input type itself (events.Event.Decode).
		if untrustedNamed[pkgPath[strings.LastIndex(pkgPath, "/")+1:]+"."+recvName(fd)] {
			return true
		}
	}
	for _, f := range fd.Type.Params.List {
		if untrusted(f.Type) {
			return true
		}
	}
	return false
}

func recvName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name
		}
		return ""
	}
}

var modCache = map[string]string{}

// importPath derives a directory's import path from the nearest go.mod.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		mod, ok := modCache[d]
		if !ok {
			mod = modulePath(filepath.Join(d, "go.mod"))
			modCache[d] = mod
		}
		if mod != "" {
			rel, _ := filepath.Rel(d, abs)
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("fuzzguard: no go.mod above %s", dir)
		}
	}
}

func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}
