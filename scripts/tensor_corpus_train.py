"""The model trained here for the tensor corpus (scripts/tensor_corpus.py):
a 2-layer pre-norm attention classifier over the 2x2-pixel patches of
scikit-learn's bundled digits, trained with Adam on the CPU in well under a
minute. Returns its tensors by kind: weights, activations, kv_cache,
gradients (all float32)."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

D_MODEL, HEADS, HIDDEN, LAYERS, TOKENS, PATCH = 64, 4, 256, 2, 16, 4
STEPS, BATCH, LEARNING_RATE, SEED = 600, 128, 2e-3, 0
GRADIENT_STEPS = (1, STEPS // 2, STEPS)


def patches(images):
    """(N, 64) pixels in 0..16 -> (N, 16, 4) 2x2 patches scaled to 0..1."""
    x = images.reshape(-1, 4, 2, 4, 2).transpose(0, 1, 3, 2, 4).reshape(-1, TOKENS, PATCH)
    return (x / 16.0).astype(np.float32)


def init_params(key):
    keys = iter(jax.random.split(key, 64))

    def dense(fan_in, fan_out):
        return jax.random.normal(next(keys), (fan_in, fan_out), jnp.float32) / np.sqrt(fan_in)

    params = {"embed": dense(PATCH, D_MODEL), "embed_bias": jnp.zeros(D_MODEL),
              "position": 0.02 * jax.random.normal(next(keys), (TOKENS, D_MODEL)),
              "head": dense(D_MODEL, 10), "head_bias": jnp.zeros(10),
              "final_norm": jnp.ones(D_MODEL)}
    for layer in range(LAYERS):
        for name in ("q", "k", "v", "o"):
            params[f"layer{layer}.w{name}"] = dense(D_MODEL, D_MODEL)
        params[f"layer{layer}.norm1"] = jnp.ones(D_MODEL)
        params[f"layer{layer}.norm2"] = jnp.ones(D_MODEL)
        params[f"layer{layer}.mlp_in"] = dense(D_MODEL, HIDDEN)
        params[f"layer{layer}.mlp_in_bias"] = jnp.zeros(HIDDEN)
        params[f"layer{layer}.mlp_out"] = dense(HIDDEN, D_MODEL)
        params[f"layer{layer}.mlp_out_bias"] = jnp.zeros(D_MODEL)
    return params


def rms_norm(x, gain):
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * gain


def forward(params, x, pre_relu_shift=None):
    """Logits and the intermediates the corpus records. `pre_relu_shift`
    (zeros) is added before each ReLU so its gradient is dL/d(pre-activation)."""
    h = x @ params["embed"] + params["embed_bias"] + params["position"]
    keep = {}
    n, t, dh = x.shape[0], TOKENS, D_MODEL // HEADS
    for layer in range(LAYERS):
        p = lambda name: params[f"layer{layer}.{name}"]  # noqa: E731
        a = rms_norm(h, p("norm1"))
        q, k, v = (
            (a @ p(f"w{name}")).reshape(n, t, HEADS, dh).transpose(0, 2, 1, 3) for name in ("q", "k", "v")
        )
        scores = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh), axis=-1)
        h = h + (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, D_MODEL) @ p("wo")
        pre = rms_norm(h, p("norm2")) @ p("mlp_in") + p("mlp_in_bias")
        if pre_relu_shift is not None:
            pre = pre + pre_relu_shift[layer]
        hidden = jax.nn.relu(pre)
        h = h + hidden @ p("mlp_out") + p("mlp_out_bias")
        keep[f"layer{layer}.key_cache"], keep[f"layer{layer}.value_cache"] = k, v
        keep[f"layer{layer}.mlp_hidden_relu"], keep[f"layer{layer}.residual"] = hidden, h
    logits = rms_norm(h, params["final_norm"]).mean(axis=1) @ params["head"] + params["head_bias"]
    return logits, keep


def loss_fn(params, x, y, pre_relu_shift=None):
    logits, _ = forward(params, x, pre_relu_shift)
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])


def train_digits_transformer():
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        patches(digits.data), digits.target, test_size=0.2, random_state=SEED, stratify=digits.target)
    params = init_params(jax.random.PRNGKey(SEED))
    moments = jax.tree_util.tree_map(lambda p: (jnp.zeros_like(p), jnp.zeros_like(p)), params)
    grad_fn = jax.jit(jax.value_and_grad(loss_fn))

    @jax.jit
    def adam(params, moments, grads, step):
        def one(p, m, g):
            m1, m2 = 0.9 * m[0] + 0.1 * g, 0.999 * m[1] + 0.001 * g * g
            update = LEARNING_RATE * (m1 / (1 - 0.9**step)) / (jnp.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
            return p - update, (m1, m2)

        pairs = {k: one(params[k], moments[k], grads[k]) for k in params}
        return {k: v[0] for k, v in pairs.items()}, {k: v[1] for k, v in pairs.items()}

    rng = np.random.default_rng(SEED)
    tensors, losses = [], []
    for step in range(1, STEPS + 1):
        batch = rng.choice(len(x_train), BATCH, replace=False)
        loss, grads = grad_fn(params, x_train[batch], y_train[batch])
        losses.append(float(loss))
        if step in GRADIENT_STEPS:
            tensors += [("gradients", f"step{step}.{k}", np.asarray(g)) for k, g in grads.items()]
        params, moments = adam(params, moments, grads, step)

    logits, keep = jax.jit(forward)(params, x_test)
    accuracy = float(np.mean(np.argmax(np.asarray(logits), axis=1) == y_test))
    shift = jnp.zeros((LAYERS, len(x_test), TOKENS, HIDDEN))
    pre_grads = jax.grad(loss_fn, argnums=3)(params, x_test, y_test, shift)
    tensors += [("weights", k, np.asarray(v)) for k, v in params.items()]
    tensors += [("activations", k, np.asarray(v)) for k, v in keep.items() if "mlp_hidden" in k or "residual" in k]
    tensors += [("kv_cache", k, np.asarray(v)) for k, v in keep.items() if "cache" in k]
    tensors += [("gradients", f"test_set.layer{i}.d_mlp_pre_relu", np.asarray(pre_grads[i])) for i in range(LAYERS)]
    provenance = dict(package="scikit-learn", version=sklearn.__version__, file="sklearn/datasets/data/digits.csv.gz",
                      role="held out", trained_with=f"jax {jax.__version__}")
    summary = dict(model="digits-transformer", layers=LAYERS, d_model=D_MODEL, heads=HEADS, mlp_hidden=HIDDEN,
                   tokens=TOKENS, steps=STEPS, batch=BATCH, learning_rate=LEARNING_RATE, seed=SEED,
                   train_images=len(x_train), test_images=len(x_test), first_loss=losses[0],
                   final_loss=losses[-1], test_accuracy=accuracy, gradient_steps=list(GRADIENT_STEPS))
    return provenance, [(kind, name, a.astype(np.float32)) for kind, name, a in tensors], summary
