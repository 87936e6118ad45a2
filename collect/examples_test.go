package collect

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestKubernetesExample checks the Indexed Job manifest: it parses, is an
// Indexed Job, and its shard count matches completions and parallelism.
func TestKubernetesExample(t *testing.T) {
	b, err := os.ReadFile("examples/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []struct {
						Args []string `yaml:"args"`
						Env  []struct {
							Name      string `yaml:"name"`
							ValueFrom struct {
								SecretKeyRef *struct {
									Optional bool `yaml:"optional"`
								} `yaml:"secretKeyRef"`
							} `yaml:"valueFrom"`
						} `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("not an Indexed Job: %+v", job)
	}
	m := regexp.MustCompile(`--shard "\$\{JOB_COMPLETION_INDEX\}/(\d+)"`).FindStringSubmatch(job.Spec.Template.Spec.Containers[0].Args[0])
	if m == nil {
		t.Fatal("no --shard ${JOB_COMPLETION_INDEX}/N in the container args")
	}
	n, _ := strconv.Atoi(m[1])
	if n != job.Spec.Completions || n != job.Spec.Parallelism {
		t.Fatalf("--shard …/%d but completions %d, parallelism %d", n, job.Spec.Completions, job.Spec.Parallelism)
	}
	// A secret that does not exist keeps a pod from starting: the token is
	// only needed for gated models.
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if ref := e.ValueFrom.SecretKeyRef; ref != nil && !ref.Optional {
			t.Errorf("env %s: its secret is required; mark it optional", e.Name)
		}
	}
}

// TestSlurmExample checks the job array script: bash syntax, and the
// array size matches SHARDS.
func TestSlurmExample(t *testing.T) {
	const path = "examples/slurm-array.sh"
	if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	arr := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)`).FindSubmatch(b)
	shards := regexp.MustCompile(`(?m)^SHARDS=(\d+)`).FindSubmatch(b)
	if arr == nil || shards == nil || !regexp.MustCompile(`--shard "\$\{SLURM_ARRAY_TASK_ID\}/\$\{SHARDS\}"`).Match(b) {
		t.Fatal("missing --array, SHARDS or --shard ${SLURM_ARRAY_TASK_ID}/${SHARDS}")
	}
	// Array tasks on one node share its ports: vllm serve's 8000 would be
	// taken by the first.
	if !regexp.MustCompile(`(?m)^#SBATCH --exclusive\b`).Match(b) {
		t.Error("array tasks may share a node and its engine port: want #SBATCH --exclusive")
	}
	last, _ := strconv.Atoi(string(arr[1]))
	n, _ := strconv.Atoi(string(shards[1]))
	if last+1 != n {
		t.Fatalf("--array=0-%d is %d tasks but SHARDS=%d", last, last+1, n)
	}
}

// TestExamplesFitTheirCampaign: each example asks the scheduler for the
// GPUs its campaign's hardware says, and tells where the datasets its
// profiles read must be (without them every shard stops at its preflight).
func TestExamplesFitTheirCampaign(t *testing.T) {
	for _, tc := range []struct{ path, gpus string }{
		{"examples/k8s-indexed-job.yaml", `nvidia\.com/gpu: (\d+)`},
		{"examples/slurm-array.sh", `(?m)^#SBATCH --gres=gpu:(\d+)`},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`content/\S+/campaign\.yaml`).Find(b)
		if m == nil {
			t.Fatalf("%s names no campaign", tc.path)
		}
		f, err := Load(filepath.Join("..", string(m)))
		if err != nil {
			t.Fatal(err)
		}
		g := regexp.MustCompile(tc.gpus).FindSubmatch(b)
		if g == nil || string(g[1]) != strconv.Itoa(f.Campaign.Hardware.Count) {
			t.Errorf("%s: GPUs %q, campaign hardware count %d", tc.path, g, f.Campaign.Hardware.Count)
		}
		for _, p := range f.Campaign.Profiles {
			if p.DatasetPath != "" && !strings.Contains(string(b), filepath.Base(p.DatasetPath)) {
				t.Errorf("%s does not say where %s must be (profile %s)", tc.path, p.DatasetPath, p.ID)
			}
		}
	}
}
