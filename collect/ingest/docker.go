package ingest

import (
	"regexp"
	"strings"
)

// reDockerRun starts a container command: `docker run`, `podman run`,
// with sudo or not. Whether it serves a model is decided on the whole
// command (its image and inner command): ServingCommand.
var reDockerRun = regexp.MustCompile(`^(?:sudo[ \t]+)?(?:docker|podman)[ \t]+run(?:[ \t]|$)`)

// StartsServingCommand says whether a line starts a command that may be a
// serving command: a known launcher (vllm serve, python3 -m
// sglang.launch_server, …, environment assignments before it) or a
// container run; the whole command (continuation lines joined) is then
// judged by ServingCommand.
func StartsServingCommand(line string) bool {
	return reCommand.MatchString(line) || reDockerRun.MatchString(line)
}

// ServingCommand says whether a whole command launches an engine
// EngineOf knows: a launcher, or a container whose image or inner
// command is one (`docker run … vllm/vllm-openai …`, `docker run …
// lmsysorg/sglang … python3 -m sglang.launch_server …`).
func ServingCommand(command string) bool {
	_, rest := splitEnv(command)
	if reDockerRun.MatchString(rest) {
		return EngineOf(rest) != ""
	}
	return reCommand.MatchString(rest)
}

// dockerBool are the `docker run` flags that take no value.
var dockerBool = map[string]bool{
	"--rm": true, "--privileged": true, "--init": true, "--detach": true, "--interactive": true,
	"--tty": true, "--read-only": true, "--no-healthcheck": true, "--oom-kill-disable": true,
	"--publish-all": true, "--sig-proxy": true,
}

// dockerInner reads `docker run [OPTIONS] IMAGE [ARG...]` (podman, sudo
// alike) and returns the image and the command the container runs, as it
// would be typed without the container: the arguments after the image
// when they are a launcher (python3 -m sglang.launch_server …, vllm serve
// …), else the image's own entrypoint before them (vllm/vllm-openai runs
// `vllm serve`, llama.cpp's server image `llama-server`). ok is false
// when the command is no container run.
func dockerInner(command string) (image, inner string, ok bool) {
	f := strings.Fields(strings.ReplaceAll(command, "\\\n", " "))
	var kept []string
	for _, x := range f {
		if x != `\` {
			kept = append(kept, x)
		}
	}
	f = kept
	if len(f) > 0 && f[0] == "sudo" {
		f = f[1:]
	}
	if len(f) < 2 || (f[0] != "docker" && f[0] != "podman") || f[1] != "run" {
		return "", "", false
	}
	i := 2
	for ; i < len(f); i++ {
		x := f[i]
		if !strings.HasPrefix(x, "-") {
			break
		}
		switch {
		case strings.HasPrefix(x, "--"):
			if !strings.Contains(x, "=") && !dockerBool[x] {
				i++ // --name NAME, --gpus all, --ipc host, …
			}
		case strings.Trim(x[1:], "ditP") == "":
			// -d, -it, -itd: flags without a value
		case len(x) == 2:
			i++ // -v A:B, -p 8000:8000, -e K=V
		}
	}
	if i >= len(f) {
		return "", "", false
	}
	image, args := f[i], f[i+1:]
	cmd := strings.Join(args, " ")
	if len(args) > 0 && EngineOf(cmd) != "" {
		return image, cmd, true
	}
	switch imageEngine(image) {
	case "vllm":
		return image, strings.TrimSpace("vllm serve " + cmd), true
	case "llamacpp":
		return image, strings.TrimSpace("llama-server " + cmd), true
	}
	return image, cmd, true
}

// imageEngine names the engine a container image ships, from its name
// without registry and tag: vllm/vllm-openai, rocm/vllm → vllm;
// lmsysorg/sglang → sglang; …/llama.cpp → llamacpp; "" otherwise.
func imageEngine(image string) string {
	name := strings.ToLower(image)
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name = name[:i]
	}
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	switch {
	case strings.Contains(name, "vllm"):
		return "vllm"
	case strings.Contains(name, "sglang"):
		return "sglang"
	case strings.Contains(name, "tensorrt-llm") || strings.Contains(name, "tensorrt_llm") || strings.Contains(name, "trtllm"):
		return "trtllm"
	case strings.Contains(name, "llama.cpp"):
		return "llamacpp"
	}
	return ""
}

var reImageVersion = regexp.MustCompile(`^v?\d+\.\d+[\w.+-]*$`)

// ImageVersion is the version a container serving command's image tag
// names (vllm/vllm-openai:v0.11.0 → v0.11.0), "" for no container or a
// tag that is no version (latest, nightly).
func ImageVersion(command string) string {
	_, rest := splitEnv(command)
	image, _, ok := dockerInner(rest)
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(image, ':')
	if i < 0 || i < strings.LastIndexByte(image, '/') {
		return ""
	}
	if tag := image[i+1:]; reImageVersion.MatchString(tag) {
		return tag
	}
	return ""
}
