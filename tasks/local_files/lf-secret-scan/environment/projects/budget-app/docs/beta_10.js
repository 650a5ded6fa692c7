alpha cache parse config render model
model alpha value token config parse view model
alpha value user token render alpha beta token
cache beta cache build
view cache data alpha alpha build cache
