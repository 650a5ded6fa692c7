config beta token data index index build config
cache render render test beta
model cache test model
beta user index beta beta user render view user
data view parse model data config
test user build token index beta user test
token render view value render token build
config build view
