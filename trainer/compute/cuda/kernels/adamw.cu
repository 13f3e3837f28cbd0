// k_adamw is torch.optim.AdamW's update (amsgrad off) in float32, with the
// step's scalars formed in float64 by the host exactly as the CPU backend
// forms them: decay = 1 - lr*wd, c1 = 1 - b1, c2 = 1 - b2, step = lr/(1 -
// b1^t), bc2 = sqrt(1 - b2^t), gscale the gradient's scale.
extern "C" __global__ void k_adamw(float* param, const float* grad, float* m, float* v, long long n,
                                   float b1, float b2, float c1, float c2, float eps, float decay,
                                   float step, float bc2, float gscale) {
  GRID_STRIDE(i, n) {
    const float g = grad[i] * gscale;
    const float mi = b1 * m[i] + c1 * g;
    const float vi = b2 * v[i] + c2 * g * g;
    m[i] = mi;
    v[i] = vi;
    param[i] = param[i] * decay - step * mi / (sqrtf(vi) / bc2 + eps);
  }
}
