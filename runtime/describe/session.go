package describe

import (
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Properties is SHOW PROPERTIES: every property the table knows, as
// ksqlDB's ListPropertiesExecutor lists them: unset ones with a null
// value, secrets hidden, those the session overrode (session against
// server) and those at their default named.
func Properties(text string, table props.Table, session, server props.Properties) api.Entity {
	out := api.PropertiesList{StatementText: text}
	for _, l := range table.List(session) {
		p := api.Property{Name: l.Name, Scope: l.Scope, Editable: !l.Fixed, Level: "SERVER"}
		if l.Set {
			p.Value = &l.Value
		}
		out.Properties = append(out.Properties, p)
		if session[l.Name] != server[l.Name] {
			out.OverwrittenProperties = append(out.OverwrittenProperties, l.Name)
		}
		if l.Default {
			out.DefaultProperties = append(out.DefaultProperties, l.Name)
		}
	}
	return out
}

// Variables is SHOW VARIABLES: the session's DEFINEd variables by name.
func Variables(text string, vars map[string]string) api.Entity {
	out := api.VariablesList{StatementText: text}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out.Variables = append(out.Variables, api.Variable{Name: k, Value: vars[k]})
	}
	return out
}

// Functions is SHOW FUNCTIONS.
func Functions(text string, reg *functions.Registry) api.Entity {
	out := api.FunctionNameList{StatementText: text}
	for _, f := range reg.Functions() {
		out.Functions = append(out.Functions, api.SimpleFunctionInfo{Name: f.Name, Type: f.Kind.String(), Category: string(f.Category)})
	}
	return out
}

// Function is DESCRIBE FUNCTION: each overload of the function; version
// is the server's.
func Function(st *ast.DescribeFunction, reg *functions.Registry, version string) (api.Entity, error) {
	name := strings.ToUpper(st.Name)
	overloads, ok := reg.Describe(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "Can't find any functions with the name '%s'", name)
	}
	out := api.FunctionDescriptionList{StatementText: st.Text(), Name: name, Author: "sqlstream", Version: version, Path: "internal", Type: api.FunctionScalar}
	if k, ok := reg.Kind(name); ok {
		out.Type = k.String()
	}
	if def, ok := reg.Lookup(name); ok {
		out.Description = def.Description
	} else if def, ok := reg.LookupTable(name); ok {
		out.Description = def.Description
	}
	for _, o := range overloads {
		out.Functions = append(out.Functions, functionInfo(o))
	}
	return out, nil
}

func functionInfo(o functions.OverloadInfo) api.FunctionInfo {
	fi := api.FunctionInfo{ReturnType: o.ReturnType, Description: o.Description}
	for _, a := range o.Arguments {
		fi.Arguments = append(fi.Arguments, api.ArgumentInfo{Name: a.Name, Type: a.Type, IsVariadic: a.Variadic})
		fi.ArgumentTypes = append(fi.ArgumentTypes, a.Type)
	}
	return fi
}

// Types is SHOW TYPES: the custom types as ksqlDB's type_list entity.
func Types(text string, named []planner.NamedType) api.Entity {
	out := api.TypeList{StatementText: text, Types: map[string]api.SchemaInfo{}}
	for _, t := range named {
		out.Types[t.Name] = api.SchemaInfoOf(t.Type)
	}
	return out
}
