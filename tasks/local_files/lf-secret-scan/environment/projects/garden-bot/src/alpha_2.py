token config model data alpha token
beta parse config view config view data render value
model token beta render view alpha
test beta parse view index
data token beta
model value config alpha value data build alpha
model render config parse view token build render
