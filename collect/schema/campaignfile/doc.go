// Package campaignfile reads the campaign YAML file (schema.Campaign) for
// every consumer: collect (run and validate), collect/ingest (import) and
// render (report pages). It is the one place that knows the file format:
//
//   - Parse / Read decode strictly (unknown fields and wrong types are
//     errors) and report "file:line: what", in words a campaign author
//     knows ("unknown field \"gpu\" in an experiment");
//   - File.Line finds the line of a field by its path ("steps", 0,
//     "experiments", 1, "id"), for errors found after decoding;
//   - File.CheckIDs checks what every consumer relies on: ids present and
//     unique, and references (experiment profiles, chosen, baseline,
//     optimized) that resolve;
//   - Problem, ValidationError and Errors report every problem at once,
//     each as "file:line: field.path: what".
//
// DecodeStrict and DecodeError are exported for other strict YAML in the
// project (render's front matter and page blocks), so that all YAML errors
// read alike. Package schema itself stays standard-library only; this
// subpackage is where gopkg.in/yaml.v3 comes in.
package campaignfile
