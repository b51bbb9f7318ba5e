package model

import (
	"github.com/prcaps/prcaps/autodiff"
	"github.com/prcaps/prcaps/manifold"
)

// Curvature is one learned curvature of a model: its parameter's name and
// the curvature β it encodes.
type Curvature struct {
	Name string  `json:"name"`
	Beta float64 `json:"beta"`
}

// CurvatureReporter is implemented by models with learnable curvatures
// (PR-CapsNet's network β and its perspectives' β_k): AppendCurvatures
// appends their current values to dst and returns it, so that a trainer
// recording them every epoch reuses one buffer.
type CurvatureReporter interface {
	AppendCurvatures(dst []Curvature) []Curvature
}

// appendBetas appends the curvatures β = −softplus(ρ) − 1e-4 of the
// curvature parameters ρ (manifold.NewCurvatureParam), named as they are.
func appendBetas(dst []Curvature, rhos []*autodiff.Var[float32]) []Curvature {
	for _, r := range rhos {
		dst = append(dst, Curvature{Name: r.Name, Beta: manifold.BetaFromRho(float64(r.Value.Data[0]))})
	}
	return dst
}

// AppendCurvatures implements CurvatureReporter: the network's β, then
// every routing layer's β_k.
func (m *PRCapsNet) AppendCurvatures(dst []Curvature) []Curvature {
	for _, g := range m.Groups() {
		if g.Name == "curvature" {
			dst = appendBetas(dst, g.Params)
		}
	}
	return dst
}

// AppendCurvatures implements CurvatureReporter: the network's β, then
// every routing layer's β_k.
func (m *PRCapsGraphNet) AppendCurvatures(dst []Curvature) []Curvature {
	for _, g := range m.Groups() {
		if g.Name == "curvature" {
			dst = appendBetas(dst, g.Params)
		}
	}
	return dst
}
