// Package checkpoint saves a trained model with what using it needs, and
// loads it back.
//
// A checkpoint is a safetensors file: every named parameter of the model
// (curvatures included) as an F32 tensor, and in the header's metadata the
// format version, the task, the registered model name and its
// configuration, the input shape, how graph datasets' node features are
// built (data.NodeEncoding), the class names, the training dataset's name
// and fingerprint, the training configuration and the run it came from.
// Tools that read safetensors (Python's safetensors, NumPy, Rust) read the
// tensors; prcaps reads the whole. Files are written atomically (a
// temporary file renamed into place), and a truncated, corrupt,
// wrong-version or wrong-model file is an error naming the file and the
// problem.
package checkpoint
